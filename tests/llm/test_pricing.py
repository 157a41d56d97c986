"""Costs from the price table: family matching, cached-token discount, and zero for what grove cannot price."""

from __future__ import annotations

import pytest

from grove.llm.pricing import Price, cost_usd, normal_model_id, price_for
from grove.llm.types import Usage


def test_cost_of_a_plain_call() -> None:
    # gpt-4o-mini: $0.15 in, $0.60 out per million
    assert cost_usd("openai:gpt-4o-mini", Usage(1_000_000, 1_000_000)) == pytest.approx(0.75)


def test_cached_tokens_are_billed_at_the_cached_rate() -> None:
    usage = Usage(prompt_tokens=10_000, completion_tokens=0, cached_tokens=8_000)
    # claude sonnet: 2,000 uncached at $3/M + 8,000 cached at $0.30/M
    assert cost_usd("anthropic:claude-sonnet-4-5", usage) == pytest.approx(2_000 * 3e-6 + 8_000 * 0.3e-6)
    assert cost_usd("anthropic:claude-sonnet-4-5", usage) < cost_usd(
        "anthropic:claude-sonnet-4-5", Usage(10_000)
    )


@pytest.mark.parametrize(
    ("name", "input_price", "output_price"),
    [
        ("openai:gpt-4o-2024-08-06", 2.50, 10.00),
        ("openai:gpt-4o-mini", 0.15, 0.60),
        ("openai:gpt-4.1-mini", 0.40, 1.60),
        ("openrouter:openai/gpt-4.1", 2.00, 8.00),
        ("openai:gpt-5.1-mini", 0.25, 2.00),
        ("openai:o3", 2.00, 8.00),
        ("openai:o3-mini", 1.10, 4.40),
        ("openrouter:anthropic/claude-sonnet-4.5", 3.00, 15.00),
        ("anthropic:claude-3-5-sonnet-20241022", 3.00, 15.00),
        ("anthropic:claude-3-5-haiku-20241022", 0.80, 4.00),
        ("anthropic:claude-haiku-4-5", 1.00, 5.00),
        ("anthropic:claude-opus-4-1", 15.00, 75.00),
        ("anthropic:claude-opus-4-20250514", 15.00, 75.00),
        ("anthropic:claude-opus-4-5", 5.00, 25.00),
        ("anthropic:claude-opus-4-6", 5.00, 25.00),
        ("openai-compat:gpt-4o-mini@http://127.0.0.1:8000/v1", 0.15, 0.60),
    ],
)
def test_model_families_match_the_right_price(name: str, input_price: float, output_price: float) -> None:
    price = price_for(name)
    assert isinstance(price, Price)
    assert (price.input, price.output) == (input_price, output_price)


@pytest.mark.parametrize(
    "name",
    [
        "local",
        "local:/models/qwen.gguf",
        "script:/tmp/s.yaml",
        "openai-compat:qwen3@http://h/v1",
        "gpt-4-1106-preview",
        "o1x",
    ],
)
def test_unknown_local_and_script_models_cost_nothing(name: str) -> None:
    assert cost_usd(name, Usage(5_000, 5_000, 1_000)) == 0.0


def test_normal_model_id() -> None:
    assert normal_model_id("openrouter:anthropic/claude-sonnet-4.5") == "claude-sonnet-4-5"
    assert normal_model_id("gpt-4.1") == "gpt-4-1"
