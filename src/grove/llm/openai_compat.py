"""The OpenAI-compatible provider (OpenAI, OpenRouter, vLLM, llama.cpp server, ...): the chat-completions format.

Transports, key handling and SDK error mapping come from grove.llm.remote (the `openai` SDK is imported only when
its transport is used: ~1 s); model quirks (max_completion_tokens, temperature, cache breakpoints, context windows)
from grove.llm.profiles. Nothing here retries: the Router does, on errors classified by grove.llm.http_errors.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_http_error
from grove.llm.http_transport import decode_event
from grove.llm.profiles import profile_for
from grove.llm.remote import RemoteModel
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolCall, ToolSchema, Usage


def context_window_for(model: str, provider: str = "openai") -> int:
    return profile_for(OpenAICompatModel.API, provider, model).context_window


class OpenAICompatModel(RemoteModel):
    """A chat model behind an OpenAI-compatible `/chat/completions` endpoint."""

    API = "openai"
    SDK = "openai"
    PATH = "/chat/completions"
    DEFAULT_BASE_URL = "https://api.openai.com/v1"
    BASE_URL_ENV = "OPENAI_BASE_URL"
    DEFAULT_KEY_ENV = "OPENAI_API_KEY"

    def sdk_client(self, sdk: Any, timeout: float) -> Any:
        # Local servers need no key, but the SDK refuses to start without one.
        return sdk.OpenAI(
            base_url=self.base_url, api_key=self.api_key or "none", max_retries=0, timeout=timeout
        )

    def sdk_types(self, sdk: Any) -> tuple[Any, Any]:
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        return ChatCompletion, sdk.Stream[ChatCompletionChunk]

    def auth_headers(self) -> dict[str, str]:
        # Local servers need no key: send none rather than a placeholder.
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def stream_params(self) -> dict[str, Any]:
        return {"stream": True, "stream_options": {"include_usage": True}}

    def request_params(
        self, messages: list[Message], tools: list[ToolSchema], settings: ModelSettings
    ) -> dict[str, Any]:
        profile = self.profile
        if profile.cache_breakpoints:
            messages = with_cache_breakpoints(messages)
        params: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            params["tools"] = tools
            choice = tool_choice(settings.tool_choice, tools) if profile.tool_choice else None
            if choice is not None:
                params["tool_choice"] = choice
        if settings.max_tokens is not None:
            params[profile.max_tokens_field] = settings.max_tokens
        if settings.temperature is not None and profile.temperature:
            params["temperature"] = settings.temperature
        if settings.seed is not None and profile.seed:
            params["seed"] = settings.seed
        return params

    def stream_objects(self, events: Iterator[tuple[str, str]]) -> Generator[dict[str, Any], None, None]:
        """The chunk objects of a streamed call, up to `data: [DONE]` (or the end of the connection)."""
        for _, data in events:
            if data == "[DONE]":
                return
            chunk = decode_event(data, self.name)
            if isinstance(chunk, dict):
                yield chunk

    def sdk_error(self, sdk: Any, error: Exception) -> ModelError | None:
        # The SDK raises an error event inside a 200 stream itself, as a bare APIError.
        if isinstance(error, sdk.APIError) and not isinstance(
            error, (sdk.APIStatusError, sdk.APIConnectionError)
        ):
            bare: Any = error  # the SDK comes in as a module: its class gives no static type
            return self._stream_error(bare.body, bare.message)
        return None

    def _stream_error(self, error: object, message: str) -> ModelError:
        """An error event inside a 200 stream (e.g. OpenRouter), classified as if it were the HTTP answer."""
        # Gateways put the upstream HTTP status in the error's code (OpenRouter: {"code": 429, ...}).
        code: Any = error.get("code") if isinstance(error, dict) else None  # any JSON value
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

    def parse(self, data: dict[str, Any]) -> Completion:
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

    def assemble(self, events: Iterable[dict[str, Any]], on_text: TextCallback) -> Completion:
        """A stream's chunk objects -> one Completion: text deltas forwarded as they come, tool calls rebuilt
        from their fragments (keyed by index)."""
        text: list[str] = []
        calls: dict[int, CallFragments] = {}
        usage = Usage()
        finish = ""
        for chunk in events:
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
            parts: list[dict[str, Any]] = [{"type": "text", "text": content}]
        elif isinstance(content, list) and content:
            parts = [dict(p) for p in content]
        else:
            continue  # e.g. an assistant turn holding only tool calls
        parts[-1]["cache_control"] = {"type": "ephemeral"}
        marked[i] = {**msg, "content": parts}
    return marked


def tool_choice(choice: str | None, tools: list[ToolSchema]) -> str | dict[str, Any] | None:
    """ModelSettings.tool_choice in this format; None (send nothing) for "auto", no choice, or a name that is
    not among the tools (a 400 on every server)."""
    if choice in ("required", "none"):
        return choice
    names = {(t.get("function") or t).get("name") for t in tools}
    if choice and choice != "auto" and choice in names:
        return {"type": "function", "function": {"name": choice}}
    return None


def parse_usage(usage: dict[str, Any] | None) -> Usage:
    if not usage:
        return Usage()
    details = usage.get("prompt_tokens_details") or {}
    return Usage(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0),
    )
