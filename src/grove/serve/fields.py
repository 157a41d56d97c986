"""Every field a client sends is honoured or refused with a clear 400, never ignored: the fields grove cannot
honour (several choices, structured output, audio...) are refused by name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from grove.serve.errors import refuse
from grove.serve.schemas import ChatMessage

# Accepted as they are: they ask nothing of the answer (attribution, caching hints, storage) or are defaults.
_HARMLESS = {
    "store",
    "service_tier",
    "safety_identifier",
    "prompt_cache_key",
    "prompt_cache_retention",
    "parallel_tool_calls",
    "truncation",
    "include",
    "background",
}
# A value that asks for nothing: the field may be sent as its default.
_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "n": (None, 1),
    "tool_choice": (None, "none", "auto"),
    "tools": (None, []),
    "functions": (None, []),
    "function_call": (None, "none", "auto"),
    "logprobs": (None, False),
    "top_logprobs": (None, 0),
    "stop": (None, [], ""),
    "presence_penalty": (None, 0, 0.0),
    "frequency_penalty": (None, 0, 0.0),
    "top_p": (None, 1, 1.0),
    "logit_bias": (None, {}),
    "modalities": (None, ["text"]),
    "reasoning_effort": (None,),
    "reasoning": (None, {}),
    "audio": (None,),
    "prediction": (None,),
    "web_search_options": (None,),
    "verbosity": (None,),
    "max_tool_calls": (None,),
    "prompt": (None,),
    "conversation": (None,),
}
_WHY = {
    "n": "grove answers with one choice (n must be 1)",
    "tools": "tools must be a list of function tools",
    "tool_choice": "tool_choice other than 'auto' or 'none' names the client's own tools: declare them in tools",
    "functions": "grove runs its own tools; client-declared functions are not offered to the model",
    "function_call": "grove runs its own tools; function_call may only be 'auto' or 'none'",
    "response_format": "grove answers in text; structured output (json_object, json_schema) is not supported",
    "text": "grove answers in text; structured output (json_object, json_schema) is not supported",
}


def check_extras(extras: dict[str, Any] | None) -> None:
    """Refuses the first field that asks for something grove does not do."""
    for name, value in (extras or {}).items():
        if name in _HARMLESS:
            continue
        if name in ("response_format", "text"):
            kind = (value or {}).get("format", value or {}) if name == "text" else (value or {})
            if isinstance(kind, dict) and kind.get("type", "text") == "text":
                continue
        elif name in _DEFAULTS and value in _DEFAULTS[name]:
            continue
        why = _WHY.get(name, f"grove does not support the field {name!r}")
        raise refuse(f"{why} (field {name!r})", name)


def check_parts(messages: Iterable[ChatMessage]) -> None:
    """Refuses audio and file parts: said, rather than dropped so the model answers without them (images are taken:
    grove.serve.image_input)."""
    for message in messages:
        other = message.other_parts()
        if other:
            raise refuse(
                f"content parts of type {other[0]!r} are not supported (grove takes text and image parts)",
                "messages",
                "unsupported_content",
            )
