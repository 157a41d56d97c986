"""Model quirks as data: which request fields a model takes, its context window, its defaults.

Providers ask `profile_for(api, provider, model)` instead of branching on model names. Every rule whose API format,
provider, vendor and model prefix match applies, in table order, so general rules come first and specific ones
after. Prefixes, not regular expressions: compiling a dozen patterns would cost a one-shot run ~0.5 ms.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple


@dataclass(frozen=True)
class ModelProfile:
    context_window: int = 128_000  # tokens, when the provider's settings name none
    max_tokens_field: str = "max_tokens"  # the request field carrying ModelSettings.max_tokens
    default_max_tokens: int | None = None  # sent when ModelSettings.max_tokens is None (the API requires one)
    temperature: bool = True  # send ModelSettings.temperature (some APIs refuse any sampling parameter)
    seed: bool = True  # send ModelSettings.seed
    tool_choice: bool = False  # send ModelSettings.tool_choice ("required", "none" or a tool's name)
    cache_breakpoints: bool = False  # mark cache breakpoints in OpenAI-format messages (Claude via gateways)
    repeat_penalty: float = 1.0  # local models: penalty against greedy decoding loops
    vision: bool = True  # takes image parts; False where a model is known not to (a clear error, not a 400)


class Rule(NamedTuple):  # not a frozen dataclass: that would cost every one-shot run ~0.5 ms of import
    """Applies `changes` to every model of API format `api` (or any: "*") and provider `provider` (or any) whose
    id starts with `model` (one prefix or several), the id taken in lower case and without a vendor prefix
    ("openai/gpt-5" -> "gpt-5"); `vendor`, when not "*", must be that prefix ("anthropic" in anthropic/claude-x)."""

    changes: tuple[tuple[str, Any], ...]
    api: str = "*"
    provider: str = "*"
    model: str | tuple[str, ...] = ""
    vendor: str = "*"

    def matches(self, api: str, provider: str, model: str) -> bool:
        vendor, _, base = model.lower().rpartition("/")
        return (
            self.api in ("*", api)
            and self.provider in ("*", provider)
            and self.vendor in ("*", vendor)
            and base.startswith(self.model)
        )


FIELDS = frozenset(f.name for f in fields(ModelProfile))


def rule(
    api: str = "*", provider: str = "*", model: str | tuple[str, ...] = "", vendor: str = "*", **changes: Any
) -> Rule:
    unknown = set(changes) - FIELDS
    if unknown:
        raise ValueError(f"unknown profile fields {sorted(unknown)}; use {sorted(FIELDS)}")
    return Rule(tuple(changes.items()), api, provider, model, vendor)


OPENAI_REASONING = ("o1", "o3", "o4", "gpt-5")
RULES: tuple[Rule, ...] = (
    # Anthropic's Messages API, version 2026-10-21 (what the SDK sends): max_tokens is required; no sampling
    # parameters at all (temperature, top_p, top_k are a 400 even at their defaults); no seed.
    rule(
        "anthropic",
        context_window=200_000,
        default_max_tokens=4096,
        temperature=False,
        seed=False,
        tool_choice=True,
    ),
    # OpenAI-format servers: OpenAI and OpenRouter take tool_choice; an arbitrary server (openai-compat: vLLM
    # without --enable-auto-tool-choice, older llama.cpp) may refuse it, so it is not sent there.
    rule("openai", tool_choice=True),
    rule("openai", "openai-compat", tool_choice=False),
    # Context windows by model family, the most specific last.
    rule("openai", model="gpt-4", context_window=8_192),
    rule("openai", model="gpt-4-32k", context_window=32_768),
    rule("openai", model="gpt-4-turbo", context_window=128_000),
    rule("openai", model="gpt-4o", context_window=128_000),
    rule("openai", model="gpt-4.1", context_window=1_047_576),
    rule("openai", model="gpt-3.5-turbo", context_window=16_385),
    rule("openai", model="gpt-5", context_window=400_000),
    rule("openai", model=("o1", "o3", "o4"), context_window=200_000),
    rule("openai", model="claude", context_window=200_000),
    rule("openai", model="gemini", context_window=1_048_576),
    # Reasoning models take max_completion_tokens (max_tokens is a 400) and only the default temperature.
    rule("openai", model=OPENAI_REASONING, max_tokens_field="max_completion_tokens", temperature=False),
    # Claude behind an OpenAI-compatible gateway caches only where the messages say so.
    rule("openai", vendor="anthropic", cache_breakpoints=True),
    # Models known to see no images: older OpenAI text models, the small reasoning ones, the embedded llama.cpp
    # model (its runtime here loads no vision projector). Unknown models may: their server decides.
    rule("openai", model=("gpt-3.5", "gpt-4", "o1-mini", "o3-mini"), vision=False),
    rule("openai", model=("gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-4-vision"), vision=True),
    rule("local", vision=False),
    # Greedy decoding of a small local model loops ("la femme, la femme, ..."); a light penalty breaks the loops.
    rule("local", repeat_penalty=1.1),
)


def profile_for(api: str, provider: str, model: str) -> ModelProfile:
    """The profile of `model` served by `provider` speaking `api`: the defaults with every matching rule applied."""
    profile = ModelProfile()
    for r in RULES:
        if r.matches(api, provider, model):
            profile = replace(profile, **dict(r.changes))
    return profile
