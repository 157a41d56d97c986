"""POST/GET/DELETE /v1/responses: the Responses API over grove sessions. Full response bodies, streamed as the
spec's events; `previous_response_id` continues exactly from that response (an older one: a copy of the session
cut there); a stateless client's resent history continues the session it extends."""

import json
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse

from grove.llm.types import ToolCall
from grove.serve.client_tools import take_tools
from grove.serve.errors import ApiError, refuse
from grove.serve.fields import check_extras, check_parts
from grove.serve.identity import history_digest, new_conversation, normal_role
from grove.serve.image_input import image_parts
from grove.serve.live import run_turn, streamed_turn
from grove.serve.response_store import ResponseStore
from grove.serve.schemas import ChatMessage, ResponsesRequest
from grove.serve.turns import TurnOutcome, TurnRequest, TurnRunner

# (no `from __future__ import annotations`: the routes name the key dependency given at run time)
RESPONSE_PREFIX = "resp:"  # the conversation of a turn that continues a stored response


def responses_router(runner: TurnRunner, client: Any, model_spec: Callable[[str], str | None]) -> APIRouter:
    # `client`: the app's per-app dependency alias (grove.serve.app's Client), hence the reportInvalidTypeForm
    # ignores where it annotates a parameter.
    store = ResponseStore(runner.store.db)
    router = APIRouter()

    @router.post("/v1/responses")
    async def create(body: ResponsesRequest, key: client, request: Request) -> Any:  # pyright: ignore[reportInvalidTypeForm]
        """One turn; `stream: true` sends the spec's server-sent events."""
        spec = model_spec(body.model)
        extras = dict(body.model_extra or {})
        client_tools, choice = take_tools(extras, "responses")
        check_extras(extras)  # tool_choice without tools is refused there unless it asks for nothing
        messages, results = _messages(body)
        if results is not None:
            earlier, last = messages, ChatMessage(role="user", content="")
        else:
            *earlier, last = messages
            if last.role != "user" or not (last.text().strip() or last.image_urls()):
                raise refuse(
                    "the last input item must be a user message with text, or function_call_output items "
                    "answering grove's function calls",
                    "input",
                    "invalid_input",
                )
        prior = [(normal_role(m.role), m.text()) for m in earlier if m.text().strip()]
        turn = TurnRequest(
            text=last.text(),
            images=image_parts(last, "input"),
            client_tools=client_tools,
            tool_choice=choice,
            tool_results=results,
            history=[{"role": role, "content": text} for role, text in prior],
            system=[text for role, text in prior if role == "system"],
            max_tokens=body.max_output_tokens,
            temperature=body.temperature,
        )
        name = key.name
        if body.previous_response_id is not None:
            previous = store.get(name, body.previous_response_id)
            if previous is None:
                raise ApiError(
                    404,
                    f"no response {body.previous_response_id!r} to continue (responses sent with store: false "
                    "are not kept)",
                    "invalid_request_error",
                    "previous_response_not_found",
                    "previous_response_id",
                )
            conversation = RESPONSE_PREFIX + body.previous_response_id
            # set anew each time: a turn that had to copy the session must not move this response elsewhere
            runner.conversations.set(name, conversation, previous.session_id)
            turn.upto = previous.last_message_id
        elif any(role != "system" for role, _ in prior) and runner.has_history(name, history_digest(prior)):
            conversation = history_digest(prior)
        else:
            conversation = new_conversation("resp_conv")
        response_id = f"resp_{secrets.token_hex(24)}"
        item_id = f"msg_{secrets.token_hex(24)}"
        created = int(time.time())

        def finish(outcome: TurnOutcome, text: str, announced: bool = False) -> dict[str, Any]:
            calls = [_function_call(c) for c in outcome.result.client_calls]
            said = [_message(item_id, text, "completed")] if text or announced or not calls else []
            done = _body(body, response_id, created, _status(outcome), [*said, *calls])
            done["tools"] = [{"type": "function", **t["function"], "strict": None} for t in client_tools]
            done["usage"] = _usage(outcome)
            done["grove_claims"] = [v.as_dict() for v in outcome.result.claims]  # as in a chat completion
            digest = history_digest([*prior, ("user", turn.text), ("assistant", text)])
            runner.conversations.set(name, digest, outcome.session_id)
            if body.store:
                store.put(name, done, outcome.session_id, outcome.last_message_id)
            return done

        if body.stream:
            events = streamed_turn(runner, name, conversation, turn, spec, request)
            started = _body(body, response_id, created, "in_progress", [])
            return StreamingResponse(
                _events(events, started, item_id, finish), media_type="text/event-stream"
            )
        outcome = await run_turn(runner, name, conversation, turn, spec, None, request)
        return JSONResponse(finish(outcome, outcome.result.answer))

    @router.get("/v1/responses/{response_id}")
    async def retrieve(response_id: str, key: client) -> dict[str, Any]:  # pyright: ignore[reportInvalidTypeForm]
        stored = store.get(key.name, response_id)
        if stored is None:
            raise ApiError(404, f"no response {response_id!r}", "invalid_request_error", "not_found")
        return stored.body

    @router.delete("/v1/responses/{response_id}")
    async def delete(response_id: str, key: client) -> dict[str, Any]:  # pyright: ignore[reportInvalidTypeForm]
        """Forgets the response (it can no longer be retrieved or continued); the session stays."""
        if not store.delete(key.name, response_id):
            raise ApiError(404, f"no response {response_id!r}", "invalid_request_error", "not_found")
        return {"id": response_id, "object": "response", "deleted": True}

    return router


def _messages(body: ResponsesRequest) -> tuple[list[ChatMessage], dict[str, str] | None]:
    """The input as messages, and the outputs of the client's function calls when the input ends with them.
    `function_call` items a stateless client resends are grove's own earlier calls: the session has them."""
    messages: list[ChatMessage] = []
    results: dict[str, str] | None = None
    if isinstance(body.input, str):
        messages = [ChatMessage(role="user", content=body.input)]
    else:
        for item in body.input:
            extra = item.model_extra or {}
            if item.type == "function_call_output":
                call_id, output = extra.get("call_id"), extra.get("output")
                if not isinstance(call_id, str) or not call_id:
                    raise refuse("a function_call_output item needs its call_id", "input", "invalid_input")
                text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
                results = {**(results or {}), call_id: text}
                continue
            if item.type == "function_call":
                continue
            message = item.message()
            if message is None:
                raise refuse(
                    f"input items of type {item.type!r} are not supported (grove takes messages, and "
                    "function_call_output items for the function tools a request declares)",
                    "input",
                    "unsupported_input",
                )
            if results is not None:
                raise refuse(
                    "function_call_output items must come last in the input", "input", "invalid_input"
                )
            messages.append(message)
    check_parts(messages)
    if body.instructions:
        messages = [ChatMessage(role="system", content=body.instructions), *messages]
    if not messages and results is None:
        raise refuse("the input holds no message", "input", "invalid_input")
    return messages, results


def _function_call(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call.id}",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        "status": "completed",
    }


def _status(outcome: TurnOutcome) -> str:
    return "incomplete" if outcome.result.budget_exhausted else "completed"


def _message(item_id: str, text: str, status: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}] if text else []
    return {"type": "message", "id": item_id, "status": status, "role": "assistant", "content": content}


def _usage(outcome: TurnOutcome) -> dict[str, Any]:
    usage = outcome.result.usage
    return {
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {
            "cached_tokens": getattr(usage, "cached_tokens", 0) or 0,
            "cache_write_tokens": 0,
        },
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    }


def _body(
    request: ResponsesRequest, response_id: str, created: int, status: str, output: list[dict[str, Any]]
) -> dict[str, Any]:
    """A whole response object, every field the spec requires present (null where grove has no value)."""
    text = "".join(p["text"] for item in output for p in item.get("content", []))
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "completed_at": int(time.time()) if status in ("completed", "incomplete") else None,
        "status": status,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "model": request.model,
        "previous_response_id": request.previous_response_id,
        "instructions": request.instructions,
        "output": output,
        "output_text": text,
        "error": None,
        "tools": [],
        "tool_choice": "auto",
        "truncation": "disabled",
        "parallel_tool_calls": True,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "top_p": 1.0,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "top_logprobs": 0,
        "temperature": request.temperature if request.temperature is not None else 1.0,
        "reasoning": {"effort": None, "summary": None},
        "usage": None,
        "max_output_tokens": request.max_output_tokens,
        "max_tool_calls": None,
        "store": request.store,
        "background": False,
        "service_tier": "default",
        "metadata": request.metadata or {},
        "safety_identifier": None,
        "prompt_cache_key": None,
        "user": request.user,
    }


async def _events(
    turn: AsyncIterator[str | TurnOutcome],
    started: dict[str, Any],
    item_id: str,
    finish: Callable[[TurnOutcome, str, bool], dict[str, Any]],
) -> AsyncIterator[str]:
    """The spec's streaming events, in its order, each numbered; text deltas as the turn produces them."""
    sequence = 0

    def event(kind: str, **fields: Any) -> str:
        nonlocal sequence
        payload = {"type": kind, "sequence_number": sequence, **fields}
        sequence += 1
        return f"event: {kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"

    at = {"item_id": item_id, "output_index": 0, "content_index": 0}
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    yield event("response.output_item.added", output_index=0, item=_message(item_id, "", "in_progress"))
    empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    yield event("response.content_part.added", **at, part=empty)
    text = ""
    try:
        async for delta in turn:
            if isinstance(delta, str):
                text += delta
                yield event("response.output_text.delta", **at, delta=delta, logprobs=[])
                continue
            done = finish(delta, text or delta.result.answer, True)
            if not text and delta.result.answer:  # nothing streamed (the turn ended without text deltas)
                text = delta.result.answer
                yield event("response.output_text.delta", **at, delta=text, logprobs=[])
            yield event("response.output_text.done", **at, text=text, logprobs=[])
            yield event("response.content_part.done", **at, part={**empty, "text": text})
            yield event("response.output_item.done", output_index=0, item=done["output"][0])
            for index, item in enumerate(done["output"][1:], start=1):  # the client's function calls
                yield event("response.output_item.added", output_index=index, item={**item, "arguments": ""})
                where = {"item_id": item["id"], "output_index": index}
                yield event("response.function_call_arguments.delta", **where, delta=item["arguments"])
                yield event("response.function_call_arguments.done", **where, arguments=item["arguments"])
                yield event("response.output_item.done", output_index=index, item=item)
            yield event(f"response.{done['status']}", response=done)
    except ApiError as exc:
        failed = {
            **started,
            "status": "failed",
            "error": {"code": exc.code or "server_error", "message": exc.message},
        }
        yield event("error", code=exc.code, message=exc.message, param=exc.param)
        yield event("response.failed", response=failed)
    except Exception as exc:  # the status line is sent already: the failure goes in the stream
        message = f"the turn failed ({type(exc).__name__})"
        failed = {**started, "status": "failed", "error": {"code": "server_error", "message": message}}
        yield event("error", code="server_error", message=message, param=None)
        yield event("response.failed", response=failed)
