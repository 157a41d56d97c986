"""The OpenAI-compatible provider (OpenAI, OpenRouter, vLLM, llama.cpp server, ...): one wire format, two transports.

Transports: the `openai` SDK (imported lazily: ~1 s), or grove.llm.http_transport (stdlib, ~0.03 s). Neither
retries: the Router does, on errors classified by grove.llm.http_errors.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error, classify_sdk_status_error, classify_transport_error
from grove.llm.http_transport import TRANSPORTS, HTTPTransport, decode_event
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolCall, ToolSchema, Usage

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_CONTEXT_WINDOW = 128_000
# Most specific prefix first; matched against the model id without any "vendor/" prefix (OpenRouter style).
CONTEXT_WINDOWS: list[tuple[str, int]] = [
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("claude", 200_000),
    ("gemini", 1_048_576),
]
# Reasoning models take max_completion_tokens and refuse max_tokens.
COMPLETION_TOKENS_PREFIXES = ("o1", "o3", "o4", "gpt-5")


def context_window_for(model: str) -> int:
    base = model.rsplit("/", 1)[-1].lower()
    for prefix, window in CONTEXT_WINDOWS:
        if base.startswith(prefix):
            return window
    return DEFAULT_CONTEXT_WINDOW


class OpenAICompatModel:
    """A chat model behind an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(
        self,
        name: str,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        key_env: str = "OPENAI_API_KEY",
        context_window: int | None = None,
        transport: str = "sdk",
    ) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
        self.name = name
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.key_env = key_env
        self.context_window = context_window or context_window_for(model)
        self.transport = transport
        self._client: Any = None
        self._http: HTTPTransport | None = None
        self._lock = threading.Lock()

    def _get_client(self, timeout: float) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    # Local servers need no key, but the SDK refuses to start without one.
                    api_key=self.api_key or "none",
                    max_retries=0,
                    timeout=timeout,
                )
            return self._client

    def _get_http(self) -> HTTPTransport:
        with self._lock:
            if self._http is None:
                # As the SDK does: no base URL means OPENAI_BASE_URL, then OpenAI itself.
                base = self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
                # Local servers need no key: send none rather than a placeholder.
                auth = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                url = base.rstrip("/") + "/chat/completions"
                self._http = HTTPTransport(url, auth, model=self.name, key_env=self.key_env)
            return self._http

    def request_params(
        self, messages: list[Message], tools: list[ToolSchema], settings: ModelSettings
    ) -> dict:
        if self.model.startswith("anthropic/"):
            messages = with_cache_breakpoints(messages)
        params: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            params["tools"] = tools
        if settings.max_tokens is not None:
            reasoning = self.model.rsplit("/", 1)[-1].startswith(COMPLETION_TOKENS_PREFIXES)
            params["max_completion_tokens" if reasoning else "max_tokens"] = settings.max_tokens
        if settings.temperature is not None:
            params["temperature"] = settings.temperature
        if settings.seed is not None:
            params["seed"] = settings.seed
        return params

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        params = self.request_params(messages, tools, settings)
        if self.transport == "http":
            return self._complete_http(params, settings.timeout, on_text)
        return self._complete_sdk(params, settings.timeout, on_text)

    def _complete_http(
        self, params: dict[str, Any], timeout: float, on_text: TextCallback | None
    ) -> Completion:
        http = self._get_http()
        if on_text is None:
            return self.parse_completion(http.complete(params, timeout))
        body = {**params, "stream": True, "stream_options": {"include_usage": True}}
        # closing(): an error raised while assembling must not leave the connection open until garbage collection.
        with contextlib.closing(self._http_chunks(http, body, timeout)) as chunks:
            return self.assemble(chunks, on_text)

    def _http_chunks(
        self, http: HTTPTransport, body: dict[str, Any], timeout: float
    ) -> Iterator[dict[str, Any]]:
        """The chunk objects of a streamed call, up to `data: [DONE]` (or the end of the connection)."""
        with contextlib.closing(http.stream(body, timeout)) as events:
            for _, data in events:
                if data == "[DONE]":
                    return
                chunk = decode_event(data, self.name)
                if isinstance(chunk, dict):
                    yield chunk

    def _complete_sdk(
        self, params: dict[str, Any], timeout: float, on_text: TextCallback | None
    ) -> Completion:
        import openai

        client = self._get_client(timeout)
        try:
            if on_text is None:
                response = client.chat.completions.create(**params, timeout=timeout)
                return self.parse_completion(response.model_dump())
            stream = client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}, timeout=timeout
            )
            with contextlib.closing(stream):
                return self.assemble((chunk.model_dump() for chunk in stream), on_text)
        except ModelError:
            raise
        except openai.APIStatusError as e:
            raise classify_sdk_status_error(e, model=self.name, key_env=self.key_env) from e
        except Exception as e:
            transport = classify_transport_error(e, self.name)
            if transport is not None:
                raise transport from e
            if isinstance(e, openai.APIError):  # the SDK raises an error event inside a 200 stream itself
                raise self._stream_error(e.body, e.message) from e
            raise

    def _stream_error(self, error: object, message: str) -> ModelError:
        """An error event inside a 200 stream (e.g. OpenRouter), classified as if it were the HTTP answer."""
        # Gateways put the upstream HTTP status in the error's code (OpenRouter: {"code": 429, ...}).
        code = error.get("code") if isinstance(error, dict) else None
        status = int(code) if str(code).isdigit() and 400 <= int(code) < 600 else 500
        err = classify_http_error(
            status,
            {"error": error} if error else None,
            None,
            model=self.name,
            key_env=self.key_env,
            fallback_message=message,
        )
        err.status = None
        return err

    def parse_completion(self, data: dict[str, Any]) -> Completion:
        """A chat-completions answer, as its JSON object (the SDK's objects are dumped to this first)."""
        choices = data.get("choices")
        if not choices:
            # Some gateways answer 200 with an error object instead of choices.
            body = {k: v for k, v in data.items() if v is not None}
            raise classify_http_error(
                500,
                body or None,
                None,
                model=self.name,
                key_env=self.key_env,
                fallback_message="the server answered without any choices",
            )
        choice = choices[0]
        message = choice.get("message") or {}
        calls = []
        for i, tc in enumerate(message.get("tool_calls") or []):
            function = tc.get("function") or {}
            calls.append(
                ToolCall(
                    id=tc.get("id") or f"call_{i}",
                    name=function.get("name") or "",
                    arguments=function.get("arguments") or "{}",
                )
            )
        return Completion(
            text=message.get("content") or "",
            tool_calls=calls,
            usage=parse_usage(data.get("usage")),
            finish_reason=choice.get("finish_reason") or ("tool_calls" if calls else "stop"),
            model=self.name,
        )

    def assemble(self, chunks: Iterable[dict[str, Any]], on_text: TextCallback) -> Completion:
        """A stream's chunk objects -> one Completion: text deltas forwarded as they come, tool calls rebuilt
        from their fragments (keyed by index)."""
        text: list[str] = []
        calls: dict[int, CallFragments] = {}
        usage = Usage()
        finish = ""
        for chunk in chunks:
            error = chunk.get("error")
            if error:
                message = error.get("message") if isinstance(error, dict) else None
                raise self._stream_error(error, message or "an error occurred during streaming")
            if chunk.get("usage"):
                usage = parse_usage(chunk["usage"])
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    text.append(delta["content"])
                    on_text(delta["content"])
                for tc in delta.get("tool_calls") or []:
                    index = tc["index"] if tc.get("index") is not None else len(calls)
                    slot = calls.setdefault(index, CallFragments())
                    function = tc.get("function") or {}
                    slot.id = slot.id or tc.get("id") or ""
                    slot.name = slot.name or function.get("name") or ""
                    if function.get("arguments"):
                        slot.arguments.append(function["arguments"])
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        if not finish:
            # Every OpenAI-style stream ends with a finish_reason; without one the connection was cut short.
            raise ModelError(
                ErrorKind.CONNECTION, "the stream ended before the model finished", model=self.name
            )
        tool_calls = [
            ToolCall(id=slot.id or f"call_{i}", name=slot.name, arguments="".join(slot.arguments) or "{}")
            for i, slot in sorted(calls.items())
        ]
        return Completion(
            text="".join(text),
            tool_calls=tool_calls,
            usage=usage,
            finish_reason=finish,
            model=self.name,
        )


@dataclass
class CallFragments:
    """One tool call as a stream delivers it: id and name once, the arguments in pieces."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def with_cache_breakpoints(messages: list[Message]) -> list[Message]:
    """Claude behind an OpenAI-compatible gateway (OpenRouter) caches only where told: mark the first system
    message and the last message, as the anthropic provider does. Returns copies; the input is untouched."""
    marked = list(messages)
    targets = {len(marked) - 1} if marked else set()
    targets |= {next((i for i, m in enumerate(marked) if m.get("role") == "system"), -1)} - {-1}
    for i in targets:
        msg = marked[i]
        content = msg.get("content")
        if isinstance(content, str) and content:
            parts = [{"type": "text", "text": content}]
        elif isinstance(content, list) and content:
            parts = [dict(p) for p in content]
        else:
            continue  # e.g. an assistant turn holding only tool calls
        parts[-1]["cache_control"] = {"type": "ephemeral"}
        marked[i] = {**msg, "content": parts}
    return marked


def parse_usage(usage: dict[str, Any] | None) -> Usage:
    if not usage:
        return Usage()
    details = usage.get("prompt_tokens_details") or {}
    return Usage(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0),
    )
