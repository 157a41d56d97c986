"""OpenAICompatModel against the fake OpenAI server, through both transports (the real openai SDK and the stdlib
one): requests, parsing, streaming."""

from __future__ import annotations

import json

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.llm.samples import TOOLS

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.openai_compat import OpenAICompatModel, context_window_for
from grove.llm.types import ModelSettings

HELLO = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "hello"}]


def model_for(srv: FakeOpenAIServer, transport: str, **kw: object) -> OpenAICompatModel:
    return OpenAICompatModel(
        name="openai-compat:fake",
        model="fake-model",
        base_url=srv.url,
        transport=transport,
        **kw,  # type: ignore[arg-type]
    )


def test_plain_completion_sends_messages_and_settings(
    openai_server: FakeOpenAIServer, transport: str
) -> None:
    openai_server.queue(FakeReply(text="Hi there."))
    model = model_for(openai_server, transport, api_key="sk-test")
    settings = ModelSettings(max_tokens=50, temperature=0.2, seed=7, timeout=5)
    result = model.complete(HELLO, [], settings)
    assert result.text == "Hi there."
    assert result.finish_reason == "stop"
    assert result.tool_calls == []
    (req,) = openai_server.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert req.body["messages"] == HELLO
    assert req.body["max_tokens"] == 50 and req.body["temperature"] == 0.2 and req.body["seed"] == 7
    assert "tools" not in req.body  # no empty tools list: some servers reject it
    assert "stream" not in req.body


def test_unset_settings_are_not_sent_and_a_missing_key_sends_no_real_key(
    openai_server: FakeOpenAIServer, transport: str
) -> None:
    model_for(openai_server, transport).complete(HELLO, TOOLS, ModelSettings(timeout=5))
    body = openai_server.requests[0].body
    assert not {"max_tokens", "temperature", "seed"} & set(body)
    assert body["tools"] == TOOLS
    # The SDK insists on some key (a placeholder); the stdlib transport sends no Authorization at all.
    expected = "Bearer none" if transport == "sdk" else None
    assert openai_server.requests[0].headers.get("authorization") == expected


def test_reasoning_models_get_max_completion_tokens(openai_server: FakeOpenAIServer, transport: str) -> None:
    model = OpenAICompatModel(
        name="openai:o3-mini", model="o3-mini", base_url=openai_server.url, transport=transport
    )
    model.complete(HELLO, [], ModelSettings(max_tokens=64, timeout=5))
    body = openai_server.requests[0].body
    assert body["max_completion_tokens"] == 64 and "max_tokens" not in body


def test_tool_calls_and_usage_with_cached_tokens(openai_server: FakeOpenAIServer, transport: str) -> None:
    usage = {"prompt_tokens": 1200, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 1024}}
    openai_server.queue(FakeReply(tool_calls=[("read_file", {"path": "a.txt"})], usage=usage))
    result = model_for(openai_server, transport).complete(HELLO, TOOLS, ModelSettings(timeout=5))
    assert result.finish_reason == "tool_calls"
    (call,) = result.tool_calls
    assert call.name == "read_file" and call.id == "call_0"
    assert json.loads(call.arguments) == {"path": "a.txt"}
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.cached_tokens) == (
        1200,
        30,
        1024,
    )


def test_streaming_forwards_text_deltas_and_assembles_tool_calls(
    openai_server: FakeOpenAIServer, transport: str
) -> None:
    usage = {"prompt_tokens": 500, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 256}}
    calls = [("read_file", {"path": "notes/a long name.txt"}), ("read_file", {"path": "b.txt"})]
    openai_server.queue(FakeReply(text="Let me look at both files.", tool_calls=calls, usage=usage))
    deltas: list[str] = []
    result = model_for(openai_server, transport).complete(
        HELLO, TOOLS, ModelSettings(timeout=5), on_text=deltas.append
    )
    assert len(deltas) > 1  # really streamed, not one final blob
    assert "".join(deltas) == result.text == "Let me look at both files."
    assert [c.id for c in result.tool_calls] == ["call_0", "call_1"]
    assert [json.loads(c.arguments) for c in result.tool_calls] == [dict(a) for _, a in calls]
    assert result.finish_reason == "tool_calls"
    assert result.usage.cached_tokens == 256 and result.usage.prompt_tokens == 500
    body = openai_server.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ({"message": "Provider overloaded", "code": 502}, ErrorKind.OVERLOADED),
        ({"message": "Rate limited upstream", "code": 429}, ErrorKind.RATE_LIMIT),
        ({"message": "Upstream failed"}, ErrorKind.SERVER_ERROR),
    ],
)
def test_an_error_inside_a_stream_is_classified(
    openai_server: FakeOpenAIServer, error: dict, kind: ErrorKind, transport: str
) -> None:
    openai_server.queue(FakeReply(text="partial", stream_error=error))
    with pytest.raises(ModelError) as info:
        model_for(openai_server, transport).complete(
            HELLO, [], ModelSettings(timeout=5), on_text=lambda _: None
        )
    assert info.value.kind is kind and info.value.status is None
    assert info.value.retryable


def test_client_is_created_once_per_model(openai_server: FakeOpenAIServer, transport: str) -> None:
    model = model_for(openai_server, transport)
    model.complete(HELLO, [], ModelSettings(timeout=5))
    first = model._client if transport == "sdk" else model._http
    assert first is not None
    model.complete(HELLO, [], ModelSettings(timeout=5))
    assert (model._client if transport == "sdk" else model._http) is first
    assert len(openai_server.requests) == 2
    # only the chosen transport was set up
    assert (model._http if transport == "sdk" else model._client) is None


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4o-mini", 128_000),
        ("gpt-4.1-mini", 1_047_576),
        ("openai/gpt-4.1", 1_047_576),
        ("qwen3-8b", 128_000),
    ],
)
def test_context_window_defaults_per_family(model: str, window: int) -> None:
    assert context_window_for(model) == window
    assert OpenAICompatModel(name="x", model=model).context_window == window
    assert OpenAICompatModel(name="x", model=model, context_window=4096).context_window == 4096


def test_claude_through_a_gateway_gets_cache_breakpoints(
    openai_server: FakeOpenAIServer, transport: str
) -> None:
    model = OpenAICompatModel(
        name="openrouter:anthropic/claude-haiku-4.5",
        model="anthropic/claude-haiku-4.5",
        base_url=openai_server.url,
        transport=transport,
    )
    messages = [*HELLO, {"role": "assistant", "content": "Hi."}, {"role": "user", "content": "more"}]
    before = json.dumps(messages)
    model.complete(messages, [], ModelSettings(timeout=5))
    sent = openai_server.requests[0].body["messages"]
    assert sent[0]["content"] == [
        {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
    ]
    assert sent[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert sent[1]["content"] == "hello" and sent[2]["content"] == "Hi."  # only the two breakpoints
    assert json.dumps(messages) == before
    # other models get the messages exactly as given
    model_for(openai_server, transport).complete(messages, [], ModelSettings(timeout=5))
    assert openai_server.requests[1].body["messages"] == messages
