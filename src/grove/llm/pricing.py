"""What a model call cost, in US dollars, from a small table of per-million-token list prices.

The prices are the providers' public list prices as known when this table was written; they change and may be
stale. Unknown, local and script models cost 0.0. Anthropic cache writes (billed 1.25x input) count as input.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from grove.llm.types import Usage


class Price(NamedTuple):
    input: float  # USD per million uncached prompt tokens
    cached_input: float  # USD per million prompt tokens read from the provider's cache
    output: float  # USD per million completion tokens


# Keys are model-id prefixes in normal form (lower case, dots as hyphens), matched up to a "-" boundary
# ("gpt-4-1" is gpt-4.1 and not gpt-4-1106-preview); the longest match wins.
PRICES: dict[str, Price] = {
    "gpt-4o": Price(2.50, 1.25, 10.00),
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "gpt-4-1": Price(2.00, 0.50, 8.00),
    "gpt-4-1-mini": Price(0.40, 0.10, 1.60),
    "gpt-4-1-nano": Price(0.10, 0.025, 0.40),
    "gpt-5": Price(1.25, 0.125, 10.00),
    "gpt-5-mini": Price(0.25, 0.025, 2.00),
    "gpt-5-nano": Price(0.05, 0.005, 0.40),
    "o1": Price(15.00, 7.50, 60.00),
    "o3": Price(2.00, 0.50, 8.00),
    "o3-mini": Price(1.10, 0.55, 4.40),
    "o4-mini": Price(1.10, 0.275, 4.40),
    "claude-opus-4": Price(15.00, 1.50, 75.00),
    "claude-opus-4-5": Price(5.00, 0.50, 25.00),
    "claude-3-opus": Price(15.00, 1.50, 75.00),
    "claude-sonnet-4": Price(3.00, 0.30, 15.00),
    "claude-3-7-sonnet": Price(3.00, 0.30, 15.00),
    "claude-3-5-sonnet": Price(3.00, 0.30, 15.00),
    "claude-haiku-4-5": Price(1.00, 0.10, 5.00),
    "claude-3-5-haiku": Price(0.80, 0.08, 4.00),
    "claude-3-haiku": Price(0.25, 0.03, 1.25),
}
FREE_PROVIDERS = ("local", "script")


def normal_model_id(model_name: str) -> str:
    """'openrouter:anthropic/claude-sonnet-4.5' → 'claude-sonnet-4-5'; 'openai-compat:m@http://h/v1' → 'm'."""
    name = model_name.strip().lower()
    provider, sep, rest = name.partition(":")
    if sep and "/" not in provider:  # a grove spec string, not a bare id
        name = rest.rpartition("@")[0] if provider == "openai-compat" and "@" in rest else rest
    name = name.rsplit("/", 1)[-1]
    return re.sub(r"[._]", "-", name)


def price_for(model_name: str) -> Price | None:
    if model_name.strip().lower().startswith(FREE_PROVIDERS):
        return None
    model_id = normal_model_id(model_name)
    matches = [key for key in PRICES if model_id == key or model_id.startswith(key + "-")]
    best = max(matches, key=len, default=None)
    return PRICES[best] if best else None


def cost_usd(model_name: str, usage: Usage) -> float:
    price = price_for(model_name)
    if price is None:
        return 0.0
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    return (
        (usage.prompt_tokens - cached) * price.input
        + cached * price.cached_input
        + usage.completion_tokens * price.output
    ) / 1_000_000
