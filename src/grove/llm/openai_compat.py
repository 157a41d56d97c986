"""The OpenAI-compatible provider (OpenAI, OpenRouter, vLLM, llama.cpp server, ...) through the `openai` SDK.

The SDK is imported lazily (0.4 s to well over 1 s, by version) and never retries: the Router owns retries, so
failures reach it classified (grove.llm.http_errors).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error, classify_transport_error
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolCall, ToolSchema, Usage

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
    ) -> None:
        self.name = name
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.key_env = key_env
        self.context_window = context_window or context_window_for(model)
        self._client: Any = None
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
        import openai

        client = self._get_client(settings.timeout)
        params = self.request_params(messages, tools, settings)
        try:
            if on_text is None:
                response = client.chat.completions.create(**params, timeout=settings.timeout)
                return self._parse(response)
            stream = client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}, timeout=settings.timeout
            )
            return self._assemble(stream, on_text)
        except ModelError:
            raise
        except openai.APIStatusError as e:
            raise classify_http_error(
                e.status_code,
                e.body,
                e.response.headers,
                model=self.name,
                key_env=self.key_env,
                fallback_message=e.message,
            ) from e
        except Exception as e:
            transport = classify_transport_error(e, self.name)
            if transport is not None:
                raise transport from e
            if isinstance(e, openai.APIError):  # an error event inside a 200 stream (e.g. OpenRouter)
                raise self._stream_error(e) from e
            raise

    def _stream_error(self, e: Any) -> ModelError:
        # Gateways put the upstream HTTP status in the error's code (OpenRouter: {"code": 429, ...}).
        code = e.body.get("code") if isinstance(e.body, dict) else None
        status = int(code) if str(code).isdigit() and 400 <= int(code) < 600 else 500
        err = classify_http_error(
            status,
            {"error": e.body} if e.body else None,
            None,
            model=self.name,
            key_env=self.key_env,
            fallback_message=e.message,
        )
        err.status = None
        return err

    def _parse(self, response: Any) -> Completion:
        choices = getattr(response, "choices", None)
        if not choices:
            # Some gateways answer 200 with an error object instead of choices.
            extra = getattr(response, "model_extra", None) or {}
            raise classify_http_error(
                500,
                extra or None,
                None,
                model=self.name,
                key_env=self.key_env,
                fallback_message="the server answered without any choices",
            )
        choice = choices[0]
        message = choice.message
        calls = [
            ToolCall(id=tc.id or f"call_{i}", name=tc.function.name, arguments=tc.function.arguments or "{}")
            for i, tc in enumerate(message.tool_calls or [])
        ]
        return Completion(
            text=message.content or "",
            tool_calls=calls,
            usage=parse_usage(response.usage),
            finish_reason=choice.finish_reason or ("tool_calls" if calls else "stop"),
            model=self.name,
        )

    def _assemble(self, stream: Iterable[Any], on_text: TextCallback) -> Completion:
        """Forward text deltas as they come; rebuild tool calls from their fragments, keyed by index."""
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        usage = Usage()
        finish = ""
        for chunk in stream:
            if getattr(chunk, "usage", None):
                usage = parse_usage(chunk.usage)
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta is not None and delta.content:
                    text.append(delta.content)
                    on_text(delta.content)
                for tc in (delta.tool_calls if delta is not None else None) or []:
                    index = tc.index if tc.index is not None else len(calls)
                    slot = calls.setdefault(index, {"id": "", "name": "", "arguments": []})
                    slot["id"] = slot["id"] or tc.id or ""
                    if tc.function is not None:
                        slot["name"] = slot["name"] or tc.function.name or ""
                        if tc.function.arguments:
                            slot["arguments"].append(tc.function.arguments)
                if choice.finish_reason:
                    finish = choice.finish_reason
        if not finish:
            # Every OpenAI-style stream ends with a finish_reason; without one the connection was cut short.
            raise ModelError(
                ErrorKind.CONNECTION, "the stream ended before the model finished", model=self.name
            )
        tool_calls = [
            ToolCall(
                id=slot["id"] or f"call_{i}", name=slot["name"], arguments="".join(slot["arguments"]) or "{}"
            )
            for i, slot in sorted(calls.items())
        ]
        return Completion(
            text="".join(text),
            tool_calls=tool_calls,
            usage=usage,
            finish_reason=finish,
            model=self.name,
        )


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


def parse_usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if isinstance(details, dict):
        cached = details.get("cached_tokens")
    return Usage(
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cached_tokens=int(cached or 0),
    )
