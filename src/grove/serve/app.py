"""The FastAPI app of `grove serve`: OpenAI-compatible /v1/models, /v1/chat/completions (streamed or not) and
/v1/responses (grove.serve.responses_api) over grove sessions, behind client keys and per-key rate limits; the dashboard router at `/`."""

import json
import logging
import secrets
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

from grove.serve.client_tools import take_tools
from grove.serve.errors import ApiError, refuse
from grove.serve.fields import check_extras, check_parts
from grove.serve.identity import (
    HISTORY_PREFIX,
    history_digest,
    named_conversation,
    new_conversation,
    normal_role,
)
from grove.serve.image_input import image_parts
from grove.serve.keys import ClientKey, KeyStore
from grove.serve.limits import BodyLimit
from grove.serve.live import run_turn, streamed_turn
from grove.serve.ratelimit import RateLimiter
from grove.serve.responses_api import responses_router
from grove.serve.schemas import (
    ChatCompletion,
    ChatCompletionRequest,
    ChatMessage,
    ErrorResponse,
    ModelCard,
    ModelList,
    error,
)
from grove.serve.state import ServeState
from grove.serve.turns import TurnOptions, TurnOutcome, TurnRequest, TurnRunner

log = logging.getLogger("grove.serve")
CONVERSATION_HEADER = "X-Grove-Conversation"
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
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            # the official SDKs send headers of their own (x-stainless-*, openai-*); a key is still required
            allow_headers=["*"],
            expose_headers=[CONVERSATION_HEADER, "X-Grove-Session"],
        )

    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        body = error(exc.message, exc.type, exc.code)
        body["error"]["param"] = exc.param
        return JSONResponse(body, exc.status, headers=exc.headers)

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

    # Made per app (it closes over this app's keys); pyright reads a function-local alias as a variable, hence
    # the reportInvalidTypeForm ignores where it is used.
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
        async def openapi(_: Client) -> dict[str, Any]:  # pyright: ignore[reportInvalidTypeForm]
            return app.openapi()

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/v1/models", responses=ERRORS)
    async def list_models(_: Client) -> ModelList:  # pyright: ignore[reportInvalidTypeForm]
        """The models a request may name: `grove` (the configured model and fallbacks) or one spec."""
        default = state.settings.model or "grove's configured model"
        cards = [ModelCard(id=DEFAULT_MODEL, description=f"grove with its memory and skills ({default})")]
        cards += [ModelCard(id=m, description="grove with this model") for m in models()[1:]]
        return ModelList(data=cards)

    @app.get("/v1/models/{model_id}", responses=ERRORS)
    async def get_model(model_id: str, key: Client) -> ModelCard:  # pyright: ignore[reportInvalidTypeForm]
        """One model of GET /v1/models; 404 for one not served here."""
        model_spec(model_id)
        return next(card for card in (await list_models(key)).data if card.id == model_id)

    @app.post("/v1/chat/completions", response_model=ChatCompletion, responses=ERRORS)
    async def chat_completions(
        body: ChatCompletionRequest,
        key: Client,  # pyright: ignore[reportInvalidTypeForm]
        request: Request,
        x_grove_conversation: Annotated[str | None, Header(max_length=128)] = None,
    ) -> Any:
        """One turn of a grove session. The conversation it continues: header X-Grove-Conversation, else
        metadata conversation_id, else the history the client resends (when it extends one it was sent);
        else a new session (its id comes back in the X-Grove-Conversation header). `user` is attribution.
        grove's tools run inside grove; function tools the client declares (`tools`) come back as `tool_calls`
        for the client to run, and its `tool` messages carry the turn on."""
        spec = model_spec(body.model)
        extras = dict(body.model_extra or {})
        client_tools, choice = take_tools(extras, "chat")
        check_extras(extras)  # tool_choice without tools is refused there unless it asks for nothing
        check_parts(body.messages)
        if body.stream_options and set(body.stream_options) - {"include_usage", "include_obfuscation"}:
            raise refuse("stream_options takes include_usage only", "stream_options")
        conversation, turn, prior = chat_turn(runner, key.name, x_grove_conversation, body)
        turn.client_tools, turn.tool_choice = client_tools, choice
        reply_id = f"chatcmpl-{secrets.token_hex(12)}"
        headers = {} if conversation.startswith(HISTORY_PREFIX) else {CONVERSATION_HEADER: conversation}

        def remember(outcome: TurnOutcome) -> None:  # a stateless client's next request names this history
            # an answer that is only calls of the client's tools has no text: its history ends at the question
            for answer in ({outcome.result.answer, outcome.streamed} - {""}) or {""}:
                digest = history_digest([*prior, ("user", turn.text), ("assistant", answer)])
                runner.conversations.set(key.name, digest, outcome.session_id)

        if body.stream:
            include_usage = bool((body.stream_options or {}).get("include_usage"))
            events = streamed_turn(runner, key.name, conversation, turn, spec, request)
            stream = _chat_stream(events, reply_id, body.model, include_usage, remember)
            return StreamingResponse(stream, media_type="text/event-stream", headers=headers)
        outcome = await run_turn(runner, key.name, conversation, turn, spec, None, request)
        remember(outcome)
        headers["X-Grove-Session"] = outcome.session_id
        payload = _completion(outcome, reply_id, body.model)
        return JSONResponse(payload, headers=headers)

    app.include_router(responses_router(runner, Client, model_spec))
    _mount_dashboard(app, state)
    return app


def _mount_dashboard(app: FastAPI, state: ServeState) -> None:
    try:
        from grove.serve.dashboard import build_router
    except ImportError:  # the dashboard is not installed (or not written yet): the API alone
        return
    app.include_router(build_router(state))


def chat_turn(
    runner: TurnRunner, key: str, header: str | None, body: ChatCompletionRequest
) -> tuple[str, TurnRequest, list[tuple[str, str]]]:
    """The conversation a chat request continues, the turn it asks for, and the history before it."""
    messages = list(body.messages)
    results: dict[str, str] | None = None
    while (
        messages and messages[-1].role == "tool"
    ):  # outputs of the client's tools: the turn goes on from them
        m = messages.pop()
        call_id = (m.model_extra or {}).get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise ApiError(
                400, "a tool message needs its tool_call_id", "invalid_request_error", "invalid_messages"
            )
        results = {call_id: m.text(), **(results or {})}
    *earlier, last = messages if results is None else [*messages, ChatMessage(role="user", content="")]
    if results is None and (last.role != "user" or not (last.text().strip() or last.image_urls())):
        raise ApiError(
            400,
            "the last message must be a user message with text or images, or tool messages answering grove's tool_calls "
            "(grove runs its own tools; assistant messages are not taken as the turn)",
            "invalid_request_error",
            "invalid_messages",
        )
    kept = [m for m in earlier if m.role in ("system", "developer", "user", "assistant") and m.text().strip()]
    prior = [(normal_role(m.role), m.text()) for m in kept]
    turn = TurnRequest(
        text=last.text(),
        images=image_parts(last),
        tool_results=results,
        history=[{"role": role, "content": text} for role, text in prior],
        system=[text for role, text in prior if role == "system"],
        max_tokens=body.max_completion_tokens or body.max_tokens,
        temperature=body.temperature,
        seed=body.seed,
    )
    try:
        named = named_conversation(header, body.metadata)
    except ValueError as exc:
        raise ApiError(400, str(exc), "invalid_request_error", "invalid_conversation") from exc
    if named is not None:
        return named, turn, prior
    if any(role != "system" for role, _ in prior):
        digest = history_digest(prior)
        if runner.has_history(key, digest):  # it extends a conversation grove answered: that session goes on
            return digest, turn, prior
    return new_conversation(), turn, prior


def _completion(outcome: TurnOutcome, reply_id: str, model: str) -> dict[str, Any]:
    return {
        "id": reply_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": outcome.result.answer or (None if outcome.result.client_calls else ""),
                    **_tool_calls(outcome),
                },
                "finish_reason": _finish(outcome),
            }
        ],
        "usage": _usage(outcome),
        "system_fingerprint": None,
        "grove_claims": [v.as_dict() for v in outcome.result.claims],  # the answer's claims, checked
    }


def _tool_calls(outcome: TurnOutcome, indexed: bool = False) -> dict[str, Any]:
    """The calls of the client's own tools the turn ended on, as chat `tool_calls` (with `index` in a stream)."""
    calls = [
        {**({"index": i} if indexed else {}), **c.to_message()}
        for i, c in enumerate(outcome.result.client_calls)
    ]
    return {"tool_calls": calls} if calls else {}


def _finish(outcome: TurnOutcome) -> str:
    if outcome.result.client_calls:
        return "tool_calls"
    return "length" if outcome.result.budget_exhausted else "stop"


def _usage(outcome: TurnOutcome) -> dict[str, int]:
    usage = outcome.result.usage
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    }


def _chunk(
    reply_id: str,
    model: str,
    delta: dict[str, Any],
    finish: str | None = None,
    extra: dict[str, Any] | None = None,
) -> str:
    payload = {
        "id": reply_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **(extra or {}),
    }
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


async def _chat_stream(
    events: AsyncIterator[str | TurnOutcome],
    reply_id: str,
    model: str,
    include_usage: bool,
    remember: Callable[[TurnOutcome], None],
) -> AsyncIterator[str]:
    """Server-sent chunks: the role, each delta as it is produced, the finish, usage when asked, [DONE]."""
    yield _chunk(reply_id, model, {"role": "assistant", "content": ""})
    try:
        async for event in events:
            if isinstance(event, str):
                yield _chunk(reply_id, model, {"content": event})
                continue
            remember(event)
            if event.result.client_calls:
                yield _chunk(reply_id, model, _tool_calls(event, indexed=True))
            claims = {"grove_claims": [v.as_dict() for v in event.result.claims]}  # as in a whole completion
            yield _chunk(reply_id, model, {}, _finish(event), claims)
            if include_usage:
                payload = {
                    "id": reply_id,
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [],
                    "usage": _usage(event),
                }
                yield f"data: {json.dumps(payload)}\n\n"
    except ApiError as exc:
        yield f"data: {json.dumps(error(exc.message, exc.type, exc.code))}\n\n"
    except Exception as exc:  # the status line is sent already: the failure goes in the stream
        log.exception("streamed turn failed")
        yield f"data: {json.dumps(error(f'the turn failed ({type(exc).__name__})', 'api_error'))}\n\n"
    yield "data: [DONE]\n\n"
