"""Model quirks as profile data: what each provider sends for a model, read from grove.llm.profiles, through both
transports; and the OpenAI-format request bytes, the same through the SDK and the stdlib transport."""

from __future__ import annotations

import json

import pytest
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.llm.samples import TOOLS

from grove.llm.anthropic_model import AnthropicModel
from grove.llm.openai_compat import OpenAICompatModel, context_window_for
from grove.llm.profiles import ModelProfile, profile_for, rule
from grove.llm.types import ModelSettings

HELLO = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "hello"}]
ALL_SET = ModelSettings(max_tokens=64, temperature=0.3, seed=5, timeout=5, tool_choice="read_file")


def openai_body(srv: FakeOpenAIServer, spec: str, transport: str, settings: ModelSettings = ALL_SET) -> dict:
    model = spec.partition(":")[2]
    OpenAICompatModel(name=spec, model=model, base_url=srv.url, transport=transport).complete(
        HELLO, TOOLS, settings
    )
    return srv.requests[-1].body


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4", 8_192),
        ("gpt-4-32k", 32_768),
        ("gpt-4-turbo-2024-04-09", 128_000),
        ("gpt-4o-mini", 128_000),
        ("gpt-4.1-mini", 1_047_576),
        ("gpt-3.5-turbo", 16_385),
        ("gpt-5.4-mini", 400_000),
        ("openai/gpt-5.4-mini", 400_000),
        ("o3-mini", 200_000),
        ("anthropic/claude-sonnet-4.5", 200_000),
        ("google/gemini-2.5-pro", 1_048_576),
        ("qwen3-8b", 128_000),
    ],
)
def test_context_windows_come_from_the_profile(model: str, window: int) -> None:
    assert context_window_for(model) == window
    assert OpenAICompatModel(name=f"openrouter:{model}", model=model).context_window == window


def test_a_configured_context_window_wins_over_the_profile() -> None:
    assert (
        OpenAICompatModel(name="openai:gpt-4o", model="gpt-4o", context_window=9_000).context_window == 9_000
    )
    assert AnthropicModel(name="anthropic:claude-x", model="claude-x").context_window == 200_000


def test_a_plain_model_gets_every_setting_and_the_named_tool_choice(
    openai_server: FakeOpenAIServer, transport: str
) -> None:
    body = openai_body(openai_server, "openai:gpt-4o-mini", transport)
    assert (body["max_tokens"], body["temperature"], body["seed"]) == (64, 0.3, 5)
    assert body["tool_choice"] == {"type": "function", "function": {"name": "read_file"}}
    assert body["messages"] == HELLO  # no cache breakpoints outside Claude


def test_reasoning_models_take_max_completion_tokens_and_no_temperature(
    openai_server: FakeOpenAIServer, transport: str
) -> None:
    body = openai_body(openai_server, "openrouter:openai/gpt-5.4-mini", transport)
    assert body["max_completion_tokens"] == 64 and "max_tokens" not in body
    assert "temperature" not in body and body["seed"] == 5
    assert body["messages"] == HELLO  # another vendor's model: no cache breakpoints


def test_claude_behind_a_gateway_gets_cache_breakpoints(
    openai_server: FakeOpenAIServer, transport: str
) -> None:
    body = openai_body(openai_server, "openrouter:anthropic/claude-sonnet-4.5", transport)
    assert body["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert HELLO[0]["content"] == "You are terse."  # the caller's messages are untouched


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("required", "required"),
        ("none", "none"),
        ("auto", None),
        (None, None),
        ("no_such_tool", None),  # naming a tool that is not offered would be a 400: not sent
    ],
)
def test_tool_choice_values(openai_server: FakeOpenAIServer, choice: str | None, sent: str | None) -> None:
    settings = ModelSettings(timeout=5, tool_choice=choice)
    assert openai_body(openai_server, "openai:gpt-4o", "http", settings).get("tool_choice") == sent


def test_an_arbitrary_openai_compatible_server_gets_no_tool_choice(openai_server: FakeOpenAIServer) -> None:
    body = openai_body(openai_server, "openai-compat:qwen3", "http")
    assert "tool_choice" not in body and body["tools"] == TOOLS


def test_anthropic_gets_no_sampling_parameters_a_max_tokens_and_its_tool_choice(
    anthropic_server: FakeAnthropicServer, transport: str
) -> None:
    model = AnthropicModel(
        name="anthropic:claude-test",
        model="claude-test",
        api_key="k",
        base_url=anthropic_server.url,
        transport=transport,
    )
    model.complete(HELLO, TOOLS, ALL_SET)
    model.complete(HELLO, TOOLS, ModelSettings(timeout=5, tool_choice="required"))
    first, second = (r.body for r in anthropic_server.requests)
    assert first["max_tokens"] == 64 and not {"temperature", "seed"} & set(first)
    assert first["tool_choice"] == {"type": "tool", "name": "read_file"}
    assert second["max_tokens"] == 4096 and second["tool_choice"] == {"type": "any"}


def test_rules_apply_in_order_and_refuse_unknown_fields() -> None:
    assert profile_for("local", "local", "smollm2.gguf").repeat_penalty == 1.1
    assert profile_for("openai", "openai", "gpt-4.1").context_window == 1_047_576  # after gpt-4's 8,192
    assert profile_for("nosuch", "nosuch", "m") == ModelProfile()
    with pytest.raises(ValueError, match="unknown profile fields"):
        rule("openai", temprature=False)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_both_openai_transports_send_the_same_bytes(openai_server: FakeOpenAIServer, stream: bool) -> None:
    for transport in ("sdk", "http"):
        openai_server.queue(FakeReply(text="same"))
        model = OpenAICompatModel(
            name="openai:gpt-5.4-mini",
            model="gpt-5.4-mini",
            base_url=openai_server.url,
            transport=transport,
        )
        model.complete(HELLO, TOOLS, ALL_SET, (lambda _: None) if stream else None)
    sdk_bytes, http_bytes = [r.raw for r in openai_server.requests if r.method == "POST"]
    assert sdk_bytes == http_bytes
    assert json.loads(http_bytes).get("stream_options") == ({"include_usage": True} if stream else None)
