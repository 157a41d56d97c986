"""What a model call cost, in US dollars, from a small table of per-million-token list prices.

The prices are the providers' public list prices as known when this table was written; they change and may be
stale. Unknown, local and script models cost 0.0. Anthropic cache writes (billed 1.25x input) count as input.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from grove.llm.types import Usage
from grove.providers_table import provider_named


class Price(NamedTuple):
    input: float  # USD per million uncached prompt tokens
    cached_input: float  # USD per million prompt tokens read from the provider's cache
    output: float  # USD per million completion tokens


OPUS_4 = Price(15.00, 1.50, 75.00)
# First match wins, on the normal id (lower case, dots as hyphens, no vendor prefix). A family's newer versions
# are priced like its latest version known here: a guess until the table is updated.
PRICES: list[tuple[str, Price]] = [
    (r"gpt-4o-mini", Price(0.15, 0.075, 0.60)),
    (r"gpt-4o", Price(2.50, 1.25, 10.00)),
    (r"gpt-4-1-nano", Price(0.10, 0.025, 0.40)),
    (r"gpt-4-1-mini", Price(0.40, 0.10, 1.60)),
    (r"gpt-4-1(-20|$)", Price(2.00, 0.50, 8.00)),  # not gpt-4-1106-preview
    (r"gpt-5(-\d+)*-nano", Price(0.05, 0.005, 0.40)),
    (r"gpt-5(-\d+)*-mini", Price(0.25, 0.025, 2.00)),
    (r"gpt-5", Price(1.25, 0.125, 10.00)),
    (r"o1(-|$)", Price(15.00, 7.50, 60.00)),
    (r"o3-mini", Price(1.10, 0.55, 4.40)),
    (r"o3(-|$)", Price(2.00, 0.50, 8.00)),
    (r"o4-mini", Price(1.10, 0.275, 4.40)),
    (r"claude-3-opus", OPUS_4),
    (r"claude-opus-4(-0|-1)?(-\d{8})?$", OPUS_4),  # Opus 4 and 4.1
    (r"claude-opus", Price(5.00, 0.50, 25.00)),  # Opus 4.5 and later
    (r"claude-3-haiku", Price(0.25, 0.03, 1.25)),
    (r"claude-3-5-haiku", Price(0.80, 0.08, 4.00)),
    (r"claude-(haiku|\d.*-haiku)", Price(1.00, 0.10, 5.00)),  # Haiku 4.5 and later
    (r"claude-(sonnet|\d.*-sonnet)", Price(3.00, 0.30, 15.00)),  # every Sonnet so far
]


def normal_model_id(model_name: str) -> str:
    """'openrouter:anthropic/claude-sonnet-4.5' → 'claude-sonnet-4-5'; 'openai-compat:m@http://h/v1' → 'm'."""
    name = model_name.strip().lower()
    provider, sep, rest = name.partition(":")
    if sep and "/" not in provider:  # a grove spec string, not a bare id
        row = provider_named(provider)
        name = rest.rpartition("@")[0] if row is not None and row.url_in_spec and "@" in rest else rest
    name = name.rsplit("/", 1)[-1]
    return re.sub(r"[._]", "-", name)


def price_for(model_name: str) -> Price | None:
    row = provider_named(model_name.strip().lower().partition(":")[0])
    if row is not None and not row.remote:  # local and scripted models cost nothing
        return None
    model_id = normal_model_id(model_name)
    return next((price for pattern, price in PRICES if re.match(pattern, model_id)), None)


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
