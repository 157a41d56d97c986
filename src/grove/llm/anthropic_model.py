"""The Anthropic provider: OpenAI-format messages in, Claude's Messages API out.

Transports, key handling and SDK error mapping come from grove.llm.remote (the `anthropic` SDK, the heaviest import
at 1-3 s, loads only when its transport is used); quirks (no sampling parameters, the required max_tokens, the
context window) from grove.llm.profiles. Two prompt-cache breakpoints: the stable system prompt (with the tools
before it, the same on every call of a session) and the last message, so each call of an agent loop reads the
previous call's prefix from the cache. Nothing here retries: the Router does.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from grove.llm.anthropic_format import convert_messages, convert_tools
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error
from grove.llm.http_transport import decode_event
from grove.llm.remote import RemoteModel
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolCall, ToolSchema, Usage

# The version the anthropic SDK (2.x) sends; both transports send it, so they talk to the same API. It has no
# sampling parameters (the "anthropic" profile in grove.llm.profiles does not send them).
API_VERSION = "2026-10-21"
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


class AnthropicModel(RemoteModel):
    """Claude through Anthropic's Messages API."""

    API = "anthropic"
    SDK = "anthropic"
    PATH = "/v1/messages"
    DEFAULT_BASE_URL = "https://api.anthropic.com"
    BASE_URL_ENV = "ANTHROPIC_BASE_URL"
    DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
    KEY_REQUIRED = True

    def sdk_client(self, sdk: Any, timeout: float) -> Any:
        # A keyless proxy at base_url: the SDK insists on some key.
        return sdk.Anthropic(
            api_key=self.api_key or "none", base_url=self.base_url, max_retries=0, timeout=timeout
        )

    def sdk_types(self, sdk: Any) -> tuple[Any, Any]:
        from anthropic.types import Message as SDKMessage
        from anthropic.types import RawMessageStreamEvent

        return SDKMessage, sdk.Stream[RawMessageStreamEvent]

    def auth_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if self.api_key:  # a keyless proxy at base_url gets no placeholder key
            headers["x-api-key"] = self.api_key
        return headers

    def request_params(
        self, messages: list[Message], tools: list[ToolSchema], settings: ModelSettings
    ) -> dict[str, Any]:
        profile = self.profile
        system, converted = convert_messages(messages)
        params: dict[str, Any] = {"model": self.model, "messages": converted}
        max_tokens = settings.max_tokens or profile.default_max_tokens
        if max_tokens is not None:
            params[profile.max_tokens_field] = max_tokens
        if settings.temperature is not None and profile.temperature:
            params["temperature"] = settings.temperature
        if system:
            params["system"] = system
        if tools:
            params["tools"] = convert_tools(tools)
            choice = tool_choice(settings.tool_choice, tools) if profile.tool_choice else None
            if choice is not None:
                params["tool_choice"] = choice
        return params

    def stream_objects(self, events: Iterator[tuple[str, str]]) -> Generator[dict[str, Any], None, None]:
        """The event objects of a streamed call; an `error` event is raised as the error it reports."""
        for event, data in events:
            payload = decode_event(data, self.name)
            if event == "error":  # told by the event's name, as the SDK does
                raise self._error_event(payload, data)
            if isinstance(payload, dict):
                yield payload

    def sdk_error(self, sdk: Any, error: Exception) -> ModelError | None:
        if isinstance(error, sdk.APIStatusError):
            status: Any = error  # the SDK comes in as a module: its class gives no static type
            if status.status_code < 400:
                # The SDK raises an `error` event inside a 200 stream itself.
                return self._error_event(status.body, status.message)
        return None

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

    def parse(self, data: dict[str, Any]) -> Completion:
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
        counts: dict[str, int] = dict.fromkeys(USAGE_KEYS, 0)
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
        counts: dict[str, int] = dict.fromkeys(USAGE_KEYS, 0)
        stop_reason: str = ""
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


def tool_choice(choice: str | None, tools: list[ToolSchema]) -> dict[str, Any] | None:
    """ModelSettings.tool_choice in this format; None (send nothing) for "auto", no choice, or a name that is
    not among the tools."""
    if choice == "required":
        return {"type": "any"}
    if choice == "none":
        return {"type": "none"}
    names = {(t.get("function") or t).get("name") for t in tools}
    if choice and choice != "auto" and choice in names:
        return {"type": "tool", "name": choice}
    return None
