"""The FastAPI app of `grove serve`: OpenAI-compatible /v1/models, /v1/chat/completions (streamed or not) and
/v1/responses over grove sessions, behind client keys and per-key rate limits; the dashboard router at `/`."""

import asyncio
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.middleware.trustedhost import TrustedHostMiddleware
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from grove.serve.keys import ClientKey, KeyStore
from grove.serve.limits import BodyLimit
from grove.serve.ratelimit import RateLimiter
from grove.serve.schemas import (
    ChatCompletion,
    ChatCompletionRequest,
    ChatMessage,
    ErrorResponse,
    ModelCard,
    ModelList,
    ResponsesRequest,
    error,
)
from grove.serve.state import ServeState
from grove.serve.turns import TurnOptions, TurnOutcome, TurnRunner

log = logging.getLogger("grove.serve")
CONVERSATION_HEADER = "X-Grove-Conversation"
CONVERSATION = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")
DEFAULT_MODEL = "grove"
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse} for code in (400, 401, 404, 409, 429, 502)
}


@dataclass
class ServeOptions:
    rate_per_minute: float = 60.0  # per key, unless the key has its own
    burst: int = 10
    cors_origins: list[str] = field(default_factory=list)  # none = no CORS headers at all
    # Host names answered; None = any. On loopback the CLI names only local ones, so a web page whose name is
    # rebound to 127.0.0.1 (DNS rebinding) is refused
    allowed_hosts: list[str] | None = None
    max_body_bytes: int = 8 * 2**20
    # GET /openapi.json, behind a key; off by default. Never a docs page: FastAPI's loads its code from a CDN
    openapi: bool = False
    turns: TurnOptions = field(default_factory=TurnOptions)


class ApiError(Exception):
    def __init__(
        self, status: int, message: str, type_: str, code: str | None = None, **headers: str
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.type, self.code, self.headers = status, message, type_, code, headers


def build_app(state: ServeState, options: ServeOptions | None = None) -> FastAPI:
    options = options or ServeOptions()
    app = FastAPI(
        title="grove",
        summary="OpenAI-compatible API over grove sessions (memory, skills, tools run by grove)",
        version="1",
        docs_url=None,  # Swagger UI and ReDoc pull scripts from a CDN into a page on a server holding keys
        redoc_url=None,
        openapi_url=None,  # served below behind a key, when asked for
    )
    runner = TurnRunner(state, options.turns)
    keys = KeyStore(runner.store.db)
    state.keys = keys
    limiter = RateLimiter(options.rate_per_minute, options.burst)
    touched: dict[str, float] = {}  # key name -> when its last_used_at was written
    app.state.grove = state
    app.state.runner = runner

    app.add_middleware(BodyLimit, max_bytes=options.max_body_bytes)
    if options.allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=options.allowed_hosts)
    if options.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=options.cors_origins,
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", CONVERSATION_HEADER],
            expose_headers=[CONVERSATION_HEADER, "X-Grove-Session"],
        )

    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error(exc.message, exc.type, exc.code), exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg', '')}"
            for e in exc.errors()[:5]
        )
        return JSONResponse(error(f"invalid request: {problems}", "invalid_request_error"), 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = "not_found" if exc.status_code == 404 else "invalid_request_error"
        return JSONResponse(error(str(exc.detail), kind), exc.status_code, headers=exc.headers)

    def client(authorization: Annotated[str | None, Header()] = None) -> ClientKey:
        """The caller's key (Authorization: Bearer gsk_...), within its rate; else 401 / 429."""
        scheme, _, token = (authorization or "").partition(" ")
        key = keys.check(token.strip()) if scheme.lower() == "bearer" else None
        if key is None:
            raise ApiError(
                401,
                "missing or wrong API key: send 'Authorization: Bearer gsk_...' (make one with "
                "`grove serve keys add NAME`)",
                "invalid_request_error",
                "invalid_api_key",
                **{"WWW-Authenticate": "Bearer"},
            )
        if time.monotonic() - touched.get(key.name, float("-inf")) > 60:  # one write a minute, not a request
            touched[key.name] = time.monotonic()
            keys.touch(key.name)
        wait = limiter.take(key.name, key.rate_per_minute)
        if wait:
            raise ApiError(
                429,
                f"rate limit of key {key.name!r} reached; retry in {wait:.0f} s",
                "rate_limit_error",
                "rate_limit_exceeded",
                **{"Retry-After": f"{wait:.0f}"},
            )
        return key

    Client = Annotated[ClientKey, Depends(client)]

    def models() -> list[str]:
        listed = [DEFAULT_MODEL, state.settings.model or "", *state.settings.fallback_models]
        return list(dict.fromkeys(m for m in listed if m))

    def model_spec(name: str) -> str | None:
        if name == DEFAULT_MODEL:
            return None
        if name in models():
            return name
        raise ApiError(
            404,
            f"model {name!r} is not served here; use one of {models()} (GET /v1/models)",
            "invalid_request_error",
            "model_not_found",
        )

    if options.openapi:

        @app.get("/openapi.json", include_in_schema=False)
        async def openapi(_: Client) -> dict[str, Any]:
            return app.openapi()

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/v1/models", responses=ERRORS)
    async def list_models(_: Client) -> ModelList:
        """The models a request may name: `grove` (the configured model and fallbacks) or one spec."""
        default = state.settings.model or "grove's configured model"
        cards = [ModelCard(id=DEFAULT_MODEL, description=f"grove with its memory and skills ({default})")]
        cards += [ModelCard(id=m, description="grove with this model") for m in models()[1:]]
        return ModelList(data=cards)

    @app.post("/v1/chat/completions", response_model=ChatCompletion, responses=ERRORS)
    async def chat_completions(
        body: ChatCompletionRequest,
        key: Client,
        request: Request,
        x_grove_conversation: Annotated[str | None, Header(max_length=128)] = None,
    ) -> Any:
        """One turn of a grove session. The conversation (header X-Grove-Conversation, else metadata
        conversation_id, else `user`) picks the session it continues; without one, a new session each time
        (its id comes back in the X-Grove-Conversation header). Tools run inside grove; only text comes back."""
        spec = model_spec(body.model)
        conversation = _conversation(x_grove_conversation, body.metadata, body.user)
        _prompt(body.messages, resumed=True)  # a bad request is refused before anything starts

        def text(resumed: bool) -> str:
            return _prompt(body.messages, resumed=resumed)

        reply_id = f"chatcmpl-{secrets.token_hex(12)}"
        headers = {CONVERSATION_HEADER: conversation}
        if body.stream:
            include_usage = bool((getattr(body, "stream_options", None) or {}).get("include_usage"))
            stream = _stream(
                runner, key.name, conversation, text, spec, reply_id, body.model, include_usage, request
            )
            return StreamingResponse(stream, media_type="text/event-stream", headers=headers)
        outcome = await _run(runner, key.name, conversation, text, spec, None, request)
        headers["X-Grove-Session"] = outcome.session_id
        payload = _completion(outcome, reply_id, body.model)
        return JSONResponse(payload, headers=headers)

    @app.post("/v1/responses", responses=ERRORS)
    async def responses(body: ResponsesRequest, key: Client, request: Request) -> dict[str, Any]:
        """The Responses API, without streaming: `previous_response_id` continues that response's session."""
        spec = model_spec(body.model)
        if body.previous_response_id is not None:
            conversation = body.previous_response_id
            if not CONVERSATION.match(conversation) or not runner.has_history(key.name, conversation):
                raise ApiError(
                    404, f"no response {conversation!r} to continue", "invalid_request_error", "not_found"
                )
        else:
            conversation = f"resp_{secrets.token_hex(12)}"
        messages = (
            [ChatMessage(role="user", content=body.input)] if isinstance(body.input, str) else body.input
        )
        if body.instructions:
            messages = [ChatMessage(role="system", content=body.instructions), *messages]
        text = _prompt(messages, resumed=body.previous_response_id is not None)
        outcome = await _run(runner, key.name, conversation, text, spec, None, request)
        response_id = f"resp_{secrets.token_hex(12)}"
        runner.conversations.set(key.name, response_id, outcome.session_id)  # the next call names this one
        usage = outcome.result.usage
        return {
            "id": response_id,
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": body.model,
            "output": [
                {
                    "type": "message",
                    "id": f"msg_{secrets.token_hex(12)}",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": outcome.result.answer, "annotations": []}],
                }
            ],
            "output_text": outcome.result.answer,
            "usage": {
                "input_tokens": usage.prompt_tokens,
                "output_tokens": usage.completion_tokens,
                "total_tokens": usage.prompt_tokens + usage.completion_tokens,
            },
        }

    _mount_dashboard(app, state)
    return app


def _mount_dashboard(app: FastAPI, state: ServeState) -> None:
    try:
        from grove.serve.dashboard import build_router  # type: ignore[attr-defined]
    except ImportError:  # the dashboard is not installed (or not written yet): the API alone
        return
    app.include_router(build_router(state))


def _conversation(header: str | None, metadata: dict[str, str] | None, user: str | None) -> str:
    given = header or (metadata or {}).get("conversation_id") or user
    if given is None:
        return f"conv_{secrets.token_hex(12)}"
    if not CONVERSATION.match(given):
        raise ApiError(
            400,
            "conversation id must be 1-128 letters, digits or . _ : @ - (header X-Grove-Conversation, "
            "metadata.conversation_id or user)",
            "invalid_request_error",
            "invalid_conversation",
        )
    return given


def _prompt(messages: list[ChatMessage], *, resumed: bool) -> str:
    """The text of this turn: the last user message. A conversation grove has not seen yet may arrive with
    earlier messages (a client that keeps its own history): they come along as a transcript, once."""
    last = messages[-1] if messages else None
    if last is None or last.role != "user" or not last.text().strip():
        raise ApiError(
            400,
            "the last message must be a user message with text (grove runs tools itself; tool and assistant "
            "messages are not taken as the turn)",
            "invalid_request_error",
            "invalid_messages",
        )
    if resumed or len(messages) == 1:
        return last.text()
    earlier = "\n\n".join(f"{m.role}: {m.text()}" for m in messages[:-1] if m.text().strip())
    if not earlier:
        return last.text()
    return f"[Earlier in this conversation, from the client]\n{earlier}\n\n[The user now says]\n{last.text()}"


async def _run(
    runner: TurnRunner,
    key: str,
    conversation: str,
    text: str | Callable[[bool], str],
    spec: str | None,
    on_text: Any,
    request: Request,
    stop: threading.Event | None = None,
) -> TurnOutcome:
    """Runs the turn; if the client hangs up meanwhile, the turn stops at its next step (what it did is kept)."""
    from grove.errors import GroveError
    from grove.llm.errors import ModelError

    stop = stop or threading.Event()
    watcher = asyncio.create_task(_until_disconnect(request, stop))
    try:
        return await runner.run(key, conversation, text, spec, on_text, stop)
    except ModelError as exc:
        raise ApiError(502, f"the model failed: {exc}", "api_error", "model_error") from exc
    except GroveError as exc:  # a configuration problem (no model configured, a bad spec): the operator's
        raise ApiError(502, f"grove could not run the turn: {exc}", "api_error", "grove_error") from exc
    finally:
        watcher.cancel()


async def _until_disconnect(request: Request, stop: threading.Event) -> None:
    """Sets `stop` when the client hangs up. The body is read already, so the next ASGI message is the
    disconnect; under ASGI 2.4 (uvicorn) nothing else tells a streaming response the client has gone."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    stop.set()


def _completion(outcome: TurnOutcome, reply_id: str, model: str) -> dict[str, Any]:
    return {
        "id": reply_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": outcome.result.answer},
                "finish_reason": "length" if outcome.result.budget_exhausted else "stop",
            }
        ],
        "usage": _usage(outcome),
        "system_fingerprint": None,
    }


def _usage(outcome: TurnOutcome) -> dict[str, int]:
    usage = outcome.result.usage
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    }


def _chunk(reply_id: str, model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    payload = {
        "id": reply_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


async def _stream(
    runner: TurnRunner,
    key: str,
    conversation: str,
    text: str | Callable[[bool], str],
    spec: str | None,
    reply_id: str,
    model: str,
    include_usage: bool,
    request: Request,
) -> AsyncIterator[str]:
    """Server-sent events: deltas as the worker thread produces them (through a queue), then the end."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def on_text(delta: str) -> None:  # in the worker thread
        loop.call_soon_threadsafe(queue.put_nowait, delta)

    stop = threading.Event()
    task = asyncio.create_task(_run(runner, key, conversation, text, spec, on_text, request, stop))
    task.add_done_callback(lambda _: queue.put_nowait(None))
    try:
        yield _chunk(reply_id, model, {"role": "assistant", "content": ""})
        while (delta := await queue.get()) is not None:
            yield _chunk(reply_id, model, {"content": delta})
        while not queue.empty():  # deltas scheduled just before the turn ended
            delta = queue.get_nowait()
            if delta:
                yield _chunk(reply_id, model, {"content": delta})
        try:
            outcome = task.result()
        except ApiError as exc:
            yield f"data: {json.dumps(error(exc.message, exc.type, exc.code))}\n\n"
        except Exception as exc:  # the status line is sent already: the failure goes in the stream
            log.exception("streamed turn failed")
            yield f"data: {json.dumps(error(f'the turn failed ({type(exc).__name__})', 'api_error'))}\n\n"
        else:
            finish = "length" if outcome.result.budget_exhausted else "stop"
            yield _chunk(reply_id, model, {}, finish)
            if include_usage:
                payload = {
                    "id": reply_id,
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [],
                    "usage": _usage(outcome),
                }
                yield f"data: {json.dumps(payload)}\n\n"
        yield "data: [DONE]\n\n"
    finally:
        if not task.done():  # the client went away: the turn stops at its next step; what it did is kept
            stop.set()
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
