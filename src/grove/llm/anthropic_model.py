"""The Anthropic provider: OpenAI-format messages in, Claude's Messages API through the `anthropic` SDK, out.

The SDK (the heaviest import, 1-3 s) loads on first use and never retries (the Router does). Two prompt-cache
breakpoints: the stable system prompt (with the tools before it, the same on every call of a session) and the
last message, so each call of an agent loop reads the previous call's prefix from the cache.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error, classify_transport_error
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolCall, ToolSchema, Usage

DEFAULT_MAX_TOKENS = 4096
DEFAULT_CONTEXT_WINDOW = 200_000
CACHE = {"type": "ephemeral"}
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


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


def _image_block(url: str) -> dict[str, Any]:
    if url.startswith("data:") and ";base64," in url:
        media_type, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _user_blocks(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        text = _text_of(content)
        return [{"type": "text", "text": text}] if text else []
    blocks = []
    for part in content:
        if part.get("type") == "text" and part.get("text"):
            blocks.append({"type": "text", "text": part["text"]})
        elif part.get("type") == "image_url":
            image = part["image_url"]
            blocks.append(_image_block(image["url"] if isinstance(image, dict) else image))
    return blocks


def _tool_input(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        # Keep what the model wrote: the tool result already told it the JSON was bad.
        return {"raw_arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def convert_messages(messages: list[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """OpenAI-format messages → (Anthropic system blocks, Anthropic messages), same-role turns merged."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for msg in messages:
        role = msg.get("role")
        if role == "system":
            text = _text_of(msg.get("content"))
            if text:
                system.append({"type": "text", "text": text})
            continue
        if role == "assistant":
            blocks = [{"type": "text", "text": t} for t in [_text_of(msg.get("content"))] if t]
            for call in msg.get("tool_calls") or []:
                fn = call["function"]
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": fn["name"],
                        "input": _tool_input(fn["arguments"]),
                    }
                )
            out_role = "assistant"
        elif role == "tool":
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": msg["tool_call_id"]}
            text = _text_of(msg.get("content"))
            if text:
                result["content"] = text
            blocks, out_role = [result], "user"
        elif role == "user":
            blocks, out_role = _user_blocks(msg.get("content")), "user"
        else:
            raise ValueError(f"message with unknown role {role!r}: use system, user, assistant or tool")
        if not blocks:
            continue  # Anthropic refuses empty turns
        if out and out[-1]["role"] == out_role:
            out[-1]["content"].extend(
                blocks
            )  # consecutive tool results (and any same-role turns) share a turn
        else:
            out.append({"role": out_role, "content": blocks})
    if system:
        system[0]["cache_control"] = CACHE
    if out:
        out[-1]["content"][-1]["cache_control"] = CACHE
    return system, out


def convert_tools(tools: list[ToolSchema]) -> list[dict[str, Any]]:
    converted = []
    for tool in tools:
        fn = tool.get("function", tool)
        converted.append(
            {
                "name": fn["name"],
                "description": fn.get("description", ""),
                "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return converted


def _usage(input_tokens: int, output_tokens: int, cache_read: int, cache_write: int) -> Usage:
    # Anthropic counts cached input apart; grove's prompt_tokens is the whole prompt, as OpenAI reports it.
    return Usage(
        prompt_tokens=input_tokens + cache_read + cache_write,
        completion_tokens=output_tokens,
        cached_tokens=cache_read,
    )


def _int(obj: Any, name: str) -> int:
    return int(getattr(obj, name, 0) or 0)


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
    ) -> None:
        self.name = name
        self.model = model
        self.api_key = api_key
        self.key_env = key_env
        self.base_url = base_url
        self.context_window = context_window or DEFAULT_CONTEXT_WINDOW
        self._client: Any = None
        self._lock = threading.Lock()

    def _get_client(self, timeout: float) -> Any:
        if not self.api_key and not self.base_url:
            raise ModelError(
                ErrorKind.AUTH,
                f"no Anthropic API key: export {self.key_env}=<your key> (grove never stores keys)",
                model=self.name,
            )
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
        if settings.temperature is not None:
            params["temperature"] = settings.temperature
        return params

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        client = self._get_client(settings.timeout)
        import anthropic

        params = self.request_params(messages, tools, settings)
        try:
            if on_text is None:
                return self._parse(client.messages.create(**params, timeout=settings.timeout))
            stream = client.messages.create(**params, stream=True, timeout=settings.timeout)
            return self._assemble(stream, on_text)
        except anthropic.APIStatusError as e:
            raise self._status_error(e) from e
        except Exception as e:
            transport = classify_transport_error(e, self.name)
            if transport is not None:
                raise transport from e
            raise

    def _status_error(self, e: Any) -> ModelError:
        status = e.status_code
        in_stream = status < 400  # an `error` event inside a 200 stream
        if in_stream:
            inner = e.body.get("error", {}) if isinstance(e.body, dict) else {}
            status = ERROR_TYPE_STATUS.get(inner.get("type", ""), 500) if isinstance(inner, dict) else 500
        err = classify_http_error(
            status,
            e.body,
            e.response.headers,
            model=self.name,
            key_env=self.key_env,
            fallback_message=e.message,
        )
        err.status = None if in_stream else e.status_code
        return err

    def _parse(self, message: Any) -> Completion:
        text, calls = [], []
        for block in message.content:
            if block.type == "text":
                text.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCall(id=block.id, name=block.name, arguments=json.dumps(block.input)))
        u = message.usage
        return Completion(
            text="".join(text),
            tool_calls=calls,
            usage=_usage(
                _int(u, "input_tokens"),
                _int(u, "output_tokens"),
                _int(u, "cache_read_input_tokens"),
                _int(u, "cache_creation_input_tokens"),
            ),
            finish_reason=FINISH_REASONS.get(message.stop_reason or "", message.stop_reason or "stop"),
            model=self.name,
        )

    def _assemble(self, stream: Any, on_text: TextCallback) -> Completion:
        """Rebuild the message from raw stream events, forwarding text deltas as they arrive."""
        blocks: dict[int, dict[str, Any]] = {}
        counts = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
        stop_reason = ""

        def take_usage(usage: Any) -> None:
            for key in counts:
                value = getattr(usage, key, None)
                if value is not None:  # message_delta repeats only what changed
                    counts[key] = int(value)

        for event in stream:
            kind = event.type
            if kind == "message_start":
                take_usage(event.message.usage)
            elif kind == "content_block_start":
                cb = event.content_block
                blocks[event.index] = {
                    "type": cb.type,
                    "text": [],
                    "json": [],
                    "id": getattr(cb, "id", ""),
                    "name": getattr(cb, "name", ""),
                }
            elif kind == "content_block_delta":
                delta, slot = (
                    event.delta,
                    blocks.setdefault(event.index, {"type": "text", "text": [], "json": []}),
                )
                if delta.type == "text_delta":
                    slot["text"].append(delta.text)
                    on_text(delta.text)
                elif delta.type == "input_json_delta":
                    slot["json"].append(delta.partial_json)
            elif kind == "message_delta":
                stop_reason = event.delta.stop_reason or stop_reason
                if event.usage is not None:
                    take_usage(event.usage)
        if not stop_reason:
            # Anthropic streams end with a stop_reason in message_delta; without one the connection was cut.
            raise ModelError(
                ErrorKind.CONNECTION, "the stream ended before the model finished", model=self.name
            )
        text = "".join("".join(b["text"]) for _, b in sorted(blocks.items()) if b["type"] == "text")
        calls = [
            ToolCall(id=b["id"], name=b["name"], arguments="".join(b["json"]) or "{}")
            for _, b in sorted(blocks.items())
            if b["type"] == "tool_use"
        ]
        return Completion(
            text=text,
            tool_calls=calls,
            usage=_usage(
                counts["input_tokens"],
                counts["output_tokens"],
                counts["cache_read_input_tokens"],
                counts["cache_creation_input_tokens"],
            ),
            finish_reason=FINISH_REASONS.get(stop_reason, stop_reason),
            model=self.name,
        )
