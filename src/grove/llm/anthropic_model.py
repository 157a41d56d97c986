"""The Anthropic provider: OpenAI-format messages in, Claude's Messages API through the `anthropic` SDK or
grove.llm.http_transport, out.

The SDK (the heaviest import, 1-3 s) loads on first use; neither transport retries (the Router does). Two
prompt-cache breakpoints: the stable system prompt (with the tools before it, the same on every call of a session)
and the last message, so each call of an agent loop reads the previous call's prefix from the cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from grove.llm.anthropic_format import convert_messages, convert_tools
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error, classify_sdk_status_error, classify_transport_error
from grove.llm.http_transport import TRANSPORTS, HTTPTransport, decode_event
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolCall, ToolSchema, Usage

DEFAULT_BASE_URL = "https://api.anthropic.com"
# The version the anthropic SDK (2.x) sends; both transports send it, so they talk to the same API. It has no
# sampling parameters: temperature, top_p or top_k, even at their defaults, are a 400 there.
API_VERSION = "2026-10-21"
DEFAULT_MAX_TOKENS = 4096
DEFAULT_CONTEXT_WINDOW = 200_000
FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
# Error types Anthropic sends inside a 200 stream, as the HTTP status they stand for elsewhere.
ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def take_usage(counts: dict[str, int], usage: object) -> None:
    """Fold an answer's or event's usage object into `counts`; keys it leaves out or sets to null keep their value
    (message_delta repeats only what changed)."""
    if isinstance(usage, Mapping):
        for key in USAGE_KEYS:
            if usage.get(key) is not None:
                counts[key] = int(usage[key])


def to_usage(counts: Mapping[str, int]) -> Usage:
    # Anthropic counts cached input apart; grove's prompt_tokens is the whole prompt, as OpenAI reports it.
    cache_read = counts["cache_read_input_tokens"]
    return Usage(
        prompt_tokens=counts["input_tokens"] + cache_read + counts["cache_creation_input_tokens"],
        completion_tokens=counts["output_tokens"],
        cached_tokens=cache_read,
    )


@dataclass
class Block:
    """One content block as a stream delivers it: type, id and name first, then its text or JSON input in pieces."""

    type: str
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


class AnthropicModel:
    """Claude through Anthropic's Messages API."""

    def __init__(
        self,
        name: str,
        model: str,
        api_key: str | None = None,
        key_env: str = "ANTHROPIC_API_KEY",
        base_url: str | None = None,
        context_window: int | None = None,
        transport: str = "sdk",
    ) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
        self.name = name
        self.model = model
        self.api_key = api_key
        self.key_env = key_env
        self.base_url = base_url
        self.context_window = context_window or DEFAULT_CONTEXT_WINDOW
        self.transport = transport
        self._client: Any = None
        self._http: HTTPTransport | None = None
        self._lock = threading.Lock()

    def _get_client(self, timeout: float) -> Any:
        with self._lock:
            if self._client is None:
                import anthropic

                self._client = anthropic.Anthropic(
                    api_key=self.api_key or "none",  # a keyless proxy at base_url; the SDK insists on a key
                    base_url=self.base_url,
                    max_retries=0,
                    timeout=timeout,
                )
            return self._client

    def _get_http(self) -> HTTPTransport:
        with self._lock:
            if self._http is None:
                # As the SDK does: no base URL means ANTHROPIC_BASE_URL, then Anthropic itself.
                base = self.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
                headers = {"anthropic-version": API_VERSION}
                if self.api_key:  # a keyless proxy at base_url gets no placeholder key
                    headers["x-api-key"] = self.api_key
                url = base.rstrip("/") + "/v1/messages"
                self._http = HTTPTransport(url, headers, model=self.name, key_env=self.key_env)
            return self._http

    def request_params(
        self, messages: list[Message], tools: list[ToolSchema], settings: ModelSettings
    ) -> dict:
        system, converted = convert_messages(messages)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": converted,
            "max_tokens": settings.max_tokens or DEFAULT_MAX_TOKENS,
        }
        if system:
            params["system"] = system
        if tools:
            params["tools"] = convert_tools(tools)
        return params

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        if not self.api_key and not self.base_url:
            raise ModelError(
                ErrorKind.AUTH,
                f"no Anthropic API key: export {self.key_env}=<your key> (grove never stores keys)",
                model=self.name,
            )
        body = self.request_params(messages, tools, settings)
        if on_text is not None:
            body["stream"] = True
        if self.transport == "http":
            return self._complete_http(body, settings.timeout, on_text)
        return self._complete_sdk(body, settings.timeout, on_text)

    def _complete_http(
        self, body: dict[str, Any], timeout: float, on_text: TextCallback | None
    ) -> Completion:
        http = self._get_http()
        if on_text is None:
            return self.parse_message(http.complete(body, timeout))
        # closing(): an error raised while assembling must not leave the connection open until garbage collection.
        with contextlib.closing(self._http_events(http, body, timeout)) as events:
            return self.assemble(events, on_text)

    def _http_events(
        self, http: HTTPTransport, body: dict[str, Any], timeout: float
    ) -> Iterator[dict[str, Any]]:
        """The event objects of a streamed call; an `error` event is raised as the error it reports."""
        with contextlib.closing(http.stream(body, timeout)) as events:
            for event, data in events:
                payload = decode_event(data, self.name)
                if event == "error":  # told by the event's name, as the SDK does
                    raise self._error_event(payload, data)
                if isinstance(payload, dict):
                    yield payload

    def _complete_sdk(self, body: dict[str, Any], timeout: float, on_text: TextCallback | None) -> Completion:
        import anthropic
        from anthropic.types import Message as SDKMessage
        from anthropic.types import RawMessageStreamEvent

        client = self._get_client(timeout)
        # client.post rather than messages.create: it sends this body as it is, the very bytes the http transport
        # sends, where messages.create reorders its keys.
        try:
            if on_text is None:
                message = client.post(
                    "/v1/messages", body=body, cast_to=SDKMessage, options={"timeout": timeout}
                )
                return self.parse_message(message.model_dump())
            stream = client.post(
                "/v1/messages",
                body=body,
                cast_to=SDKMessage,
                options={"timeout": timeout},
                stream=True,
                stream_cls=anthropic.Stream[RawMessageStreamEvent],
            )
            with contextlib.closing(stream):
                return self.assemble((event.model_dump() for event in stream), on_text)
        except ModelError:
            raise
        except anthropic.APIStatusError as e:
            if e.status_code < 400:  # the SDK raises an `error` event inside a 200 stream itself
                raise self._error_event(e.body, e.message) from e
            raise classify_sdk_status_error(e, model=self.name, key_env=self.key_env) from e
        except Exception as e:
            transport = classify_transport_error(e, self.name)
            if transport is not None:
                raise transport from e
            raise

    def _error_event(self, body: object, message: str) -> ModelError:
        """An error object in a 200 answer (a stream's `error` event), classified as the HTTP status its type
        stands for elsewhere; it has no status of its own."""
        inner = body.get("error") if isinstance(body, dict) else None
        kind = inner.get("type") if isinstance(inner, dict) else None
        err = classify_http_error(
            ERROR_TYPE_STATUS.get(kind or "", 500),
            body,
            None,
            model=self.name,
            key_env=self.key_env,
            fallback_message=message or "an error occurred during streaming",
        )
        err.status = None
        return err

    def parse_message(self, data: dict[str, Any]) -> Completion:
        """A Messages API answer, as its JSON object (the SDK's Message is dumped to this first)."""
        if data.get("type") == "error":  # some gateways answer 200 with the error object
            raise self._error_event(data, "the server answered with an error")
        text, calls = [], []
        for block in data.get("content") or []:
            if block.get("type") == "text":
                text.append(block.get("text") or "")
            elif block.get("type") == "tool_use":
                arguments = json.dumps(block.get("input") or {})
                calls.append(
                    ToolCall(id=block.get("id") or "", name=block.get("name") or "", arguments=arguments)
                )
        counts = dict.fromkeys(USAGE_KEYS, 0)
        take_usage(counts, data.get("usage"))
        stop = data.get("stop_reason") or ""
        return Completion(
            text="".join(text),
            tool_calls=calls,
            usage=to_usage(counts),
            finish_reason=FINISH_REASONS.get(stop, stop or "stop"),
            model=self.name,
        )

    def assemble(self, events: Iterable[dict[str, Any]], on_text: TextCallback) -> Completion:
        """A stream's event objects -> one Completion: text deltas forwarded as they come, tool calls rebuilt from
        their JSON fragments (blocks keyed by index)."""
        blocks: dict[int, Block] = {}
        counts = dict.fromkeys(USAGE_KEYS, 0)
        stop_reason = ""
        for event in events:
            kind = event.get("type")
            if kind == "message_start":
                take_usage(counts, (event.get("message") or {}).get("usage"))
            elif kind == "content_block_start":
                cb = event.get("content_block") or {}
                blocks[event.get("index") or 0] = Block(
                    cb.get("type") or "", cb.get("id") or "", cb.get("name") or ""
                )
            elif kind == "content_block_delta":
                delta = event.get("delta") or {}
                slot = blocks.setdefault(event.get("index") or 0, Block("text"))
                if delta.get("type") == "text_delta" and delta.get("text"):
                    slot.parts.append(delta["text"])
                    on_text(delta["text"])
                elif delta.get("type") == "input_json_delta":
                    slot.parts.append(delta.get("partial_json") or "")
            elif kind == "message_delta":
                stop_reason = (event.get("delta") or {}).get("stop_reason") or stop_reason
                take_usage(counts, event.get("usage"))
        if not stop_reason:
            # Anthropic streams end with a stop_reason in message_delta; without one the connection was cut.
            raise ModelError(
                ErrorKind.CONNECTION, "the stream ended before the model finished", model=self.name
            )
        ordered = [b for _, b in sorted(blocks.items())]
        return Completion(
            text="".join("".join(b.parts) for b in ordered if b.type == "text"),
            tool_calls=[
                ToolCall(id=b.id, name=b.name, arguments="".join(b.parts) or "{}")
                for b in ordered
                if b.type == "tool_use"
            ],
            usage=to_usage(counts),
            finish_reason=FINISH_REASONS.get(stop_reason, stop_reason),
            model=self.name,
        )
