"""AnthropicModel: message conversion, and calls against the fake Messages API through both transports (the real
anthropic SDK and grove's stdlib one): each test that takes `transport` runs once per transport."""

from __future__ import annotations

import json
import socket

import pytest
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeReply
from tests.llm.samples import FAST, TOOLS

from grove.llm.anthropic_format import convert_messages, convert_tools
from grove.llm.anthropic_model import AnthropicModel
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.router import RetryPolicy, Router
from grove.llm.types import Completion, ModelSettings, ToolCall

# One tool round trip in grove's (OpenAI) format: two parallel calls, two results, then the user again.
CONVERSATION = [
    {"role": "system", "content": "You are grove."},
    {"role": "user", "content": "Compare a.txt and b.txt"},
    Completion(
        text="Reading both.",
        tool_calls=[
            ToolCall("call_a", "read_file", '{"path": "a.txt"}'),
            ToolCall("call_b", "read_file", '{"path": "b.txt"}'),
        ],
    ).to_message(),
    {"role": "tool", "tool_call_id": "call_a", "content": "alpha"},
    {"role": "tool", "tool_call_id": "call_b", "content": "beta"},
    {"role": "user", "content": "Which is longer?"},
]


def model_for(
    srv: FakeAnthropicServer | str, transport: str = "sdk", api_key: str | None = "sk-ant-test"
) -> AnthropicModel:
    return AnthropicModel(
        name="anthropic:claude-test",
        model="claude-test",
        api_key=api_key,
        base_url=srv if isinstance(srv, str) else srv.url,
        transport=transport,
    )


def closed_port_url() -> str:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_conversion_of_a_tool_round_trip() -> None:
    system, messages = convert_messages(CONVERSATION)
    assert system == [{"type": "text", "text": "You are grove.", "cache_control": {"type": "ephemeral"}}]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "call_a", "name": "read_file", "input": {"path": "a.txt"}},
        {"type": "tool_use", "id": "call_b", "name": "read_file", "input": {"path": "b.txt"}},
    ]
    # both results (merged into one user turn, results first) and the next question in the same turn
    results, question = messages[2]["content"][:2], messages[2]["content"][2]
    assert results == [
        {"type": "tool_result", "tool_use_id": "call_a", "content": "alpha"},
        {"type": "tool_result", "tool_use_id": "call_b", "content": "beta"},
    ]
    assert question["text"] == "Which is longer?"
    assert question["cache_control"] == {"type": "ephemeral"}  # the rolling breakpoint on the last message
    assert sum("cache_control" in b for m in messages for b in m["content"]) == 1


def test_conversion_keeps_the_input_untouched_and_handles_odd_parts() -> None:
    original = json.dumps(CONVERSATION)
    convert_messages(CONVERSATION)
    assert json.dumps(CONVERSATION) == original
    _, messages = convert_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "see"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{not json"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": ""},
        ]
    )
    assert messages[0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }
    assert messages[1]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "f", "input": {"raw_arguments": "{not json"}}
    ]
    assert messages[2]["content"][0]["tool_use_id"] == "c1"
    with pytest.raises(ValueError, match="unknown role 'robot'"):
        convert_messages([{"role": "robot", "content": "beep"}])


def test_tool_schema_conversion() -> None:
    assert convert_tools(TOOLS) == [
        {
            "name": "read_file",
            "description": "Read a file",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
    ]


def test_round_trip_through_the_fake_api(anthropic_server: FakeAnthropicServer, transport: str) -> None:
    usage = {
        "input_tokens": 40,
        "output_tokens": 12,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 100,
    }
    anthropic_server.queue(FakeReply(text="b.txt is as long as a.txt.", usage=usage))
    result = model_for(anthropic_server, transport).complete(CONVERSATION, TOOLS, FAST)
    assert result.text == "b.txt is as long as a.txt." and result.finish_reason == "stop"
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.cached_tokens) == (
        2140,
        12,
        2000,
    )
    (req,) = anthropic_server.requests
    assert req.path == "/v1/messages"
    # the http transport and older SDKs send x-api-key, newer SDKs a bearer token
    assert "sk-ant-test" in (
        req.headers.get("x-api-key"),
        req.headers.get("authorization", "").removeprefix("Bearer "),
    )
    assert req.body["max_tokens"] == 4096  # the default when settings give none
    assert req.body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert req.body["tools"][0]["input_schema"]["required"] == ["path"]


def test_tool_use_reply_becomes_tool_calls(anthropic_server: FakeAnthropicServer, transport: str) -> None:
    anthropic_server.queue(FakeReply(text="Let me read it.", tool_calls=[("read_file", {"path": "c.txt"})]))
    result = model_for(anthropic_server, transport).complete(
        CONVERSATION[:2], TOOLS, ModelSettings(max_tokens=100, temperature=0.25, timeout=5)
    )
    assert result.finish_reason == "tool_calls"
    assert [(c.id, c.name, json.loads(c.arguments)) for c in result.tool_calls] == [
        ("toolu_0", "read_file", {"path": "c.txt"})
    ]
    body = anthropic_server.requests[0].body
    # API version 2026-10-21 refuses sampling parameters: a temperature setting is not sent to Anthropic
    assert body["max_tokens"] == 100 and "temperature" not in body
    assert "stream" not in body


def test_streaming_text_tool_calls_and_usage(anthropic_server: FakeAnthropicServer, transport: str) -> None:
    usage = {"input_tokens": 10, "output_tokens": 25, "cache_read_input_tokens": 500}
    anthropic_server.queue(
        FakeReply(text="Reading c.txt now.", tool_calls=[("read_file", {"path": "c.txt"})], usage=usage)
    )
    deltas: list[str] = []
    result = model_for(anthropic_server, transport).complete(CONVERSATION, TOOLS, FAST, on_text=deltas.append)
    assert len(deltas) > 1 and "".join(deltas) == result.text == "Reading c.txt now."
    assert [(c.name, json.loads(c.arguments)) for c in result.tool_calls] == [
        ("read_file", {"path": "c.txt"})
    ]
    assert result.finish_reason == "tool_calls"
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.cached_tokens) == (
        510,
        25,
        500,
    )
    assert anthropic_server.requests[0].body["stream"] is True


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (529, ErrorKind.OVERLOADED),
        (429, ErrorKind.RATE_LIMIT),
        (500, ErrorKind.SERVER_ERROR),
        (401, ErrorKind.AUTH),
        (402, ErrorKind.BILLING),
        (404, ErrorKind.MODEL_NOT_FOUND),
        (413, ErrorKind.PAYLOAD_TOO_LARGE),
        (400, ErrorKind.BAD_REQUEST),
    ],
)
def test_error_mapping(
    anthropic_server: FakeAnthropicServer, status: int, kind: ErrorKind, transport: str
) -> None:
    anthropic_server.queue(FakeReply(status=status))
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(CONVERSATION, [], FAST)
    assert info.value.kind is kind and info.value.status == status


def test_prompt_too_long_is_context_overflow(anthropic_server: FakeAnthropicServer, transport: str) -> None:
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
    }
    anthropic_server.queue(FakeReply(status=400, error_body=body))
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(CONVERSATION, [], FAST)
    assert info.value.kind is ErrorKind.CONTEXT_OVERFLOW and info.value.status == 400
    assert "prompt is too long" in info.value.message


def test_overloaded_inside_a_stream_is_retried(
    anthropic_server: FakeAnthropicServer, sleeps, transport: str
) -> None:
    anthropic_server.queue(
        FakeReply(text="half", stream_error={"type": "overloaded_error", "message": "Overloaded"}),
        FakeReply(text="whole answer"),
    )
    events = []
    r = Router(
        [model_for(anthropic_server, transport)],
        retry=RetryPolicy(attempts=3),
        sleep=sleeps,
        on_event=events.append,
    )
    result = r.complete(CONVERSATION, [], FAST, on_text=lambda _: None)
    assert result.text == "whole answer"
    assert [(e.error.kind, e.error.status) for e in events] == [(ErrorKind.OVERLOADED, None)]


def test_retry_after_on_429_reaches_the_router(
    anthropic_server: FakeAnthropicServer, sleeps, transport: str
) -> None:
    anthropic_server.queue(FakeReply(status=429, headers={"retry-after": "3"}), FakeReply(text="ok"))
    r = Router([model_for(anthropic_server, transport)], sleep=sleeps)
    assert r.complete(CONVERSATION, [], FAST).text == "ok"
    assert sleeps.delays == [3.0]


def test_missing_key_is_an_auth_error_naming_the_variable(transport: str) -> None:
    model = AnthropicModel(
        name="anthropic:claude-test", model="claude-test", api_key=None, transport=transport
    )
    with pytest.raises(ModelError) as info:
        model.complete(CONVERSATION, [], FAST)
    assert info.value.kind is ErrorKind.AUTH and "export ANTHROPIC_API_KEY=" in str(info.value)


def test_fake_rejects_orphan_tool_results(anthropic_server: FakeAnthropicServer, transport: str) -> None:
    # Guards the conversion tests above: the fake really checks the tool_use/tool_result pairing.
    bad = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "nope", "content": "x"}]
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(bad, [], FAST)
    assert info.value.kind is ErrorKind.BAD_REQUEST and "tool_use_id" in str(info.value)


def test_a_stream_cut_short_is_a_connection_error(
    anthropic_server: FakeAnthropicServer, transport: str
) -> None:
    anthropic_server.queue(FakeReply(text="half an answer", cut_stream=True))
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(CONVERSATION, [], FAST, on_text=lambda _: None)
    assert info.value.kind is ErrorKind.CONNECTION and info.value.retryable


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_429_carries_its_status_and_retry_after(
    anthropic_server: FakeAnthropicServer, transport: str, stream: bool
) -> None:
    anthropic_server.queue(FakeReply(status=429, headers={"retry-after": "3"}))
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(
            CONVERSATION, [], FAST, on_text=(lambda _: None) if stream else None
        )
    err = info.value
    assert (err.kind, err.status, err.retry_after) == (ErrorKind.RATE_LIMIT, 429, 3.0)
    assert err.message == "fake rate_limit_error (HTTP 429)"  # the body's message, not a generic one


def test_401_names_the_key_variable(anthropic_server: FakeAnthropicServer, transport: str) -> None:
    anthropic_server.queue(FakeReply(status=401))
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(CONVERSATION, [], FAST)
    assert info.value.kind is ErrorKind.AUTH and not info.value.retryable
    assert "export ANTHROPIC_API_KEY=" in str(info.value)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ({"type": "overloaded_error", "message": "Overloaded"}, ErrorKind.OVERLOADED),
        ({"type": "rate_limit_error", "message": "slow down"}, ErrorKind.RATE_LIMIT),
        ({"type": "api_error", "message": "Internal server error"}, ErrorKind.SERVER_ERROR),
        (
            {"type": "invalid_request_error", "message": "prompt is too long: 9 > 8"},
            ErrorKind.CONTEXT_OVERFLOW,
        ),
        ({"type": "authentication_error", "message": "invalid x-api-key"}, ErrorKind.AUTH),
    ],
)
def test_an_error_event_in_a_stream_is_classified_by_its_type(
    anthropic_server: FakeAnthropicServer, transport: str, error: dict, kind: ErrorKind
) -> None:
    anthropic_server.queue(FakeReply(text="half", stream_error=error))
    deltas: list[str] = []
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(CONVERSATION, [], FAST, on_text=deltas.append)
    assert info.value.kind is kind and info.value.status is None  # a 200 stream: no status of its own
    assert error["message"] in str(info.value)
    assert deltas == ["half"]  # what came before the error was forwarded


def test_connection_refused_is_a_connection_error(transport: str) -> None:
    with pytest.raises(ModelError) as info:
        model_for(closed_port_url(), transport).complete(CONVERSATION, [], FAST)
    assert info.value.kind is ErrorKind.CONNECTION and info.value.retryable
    assert "cannot reach the model server" in info.value.message


def test_a_read_timeout_is_a_timeout(anthropic_server: FakeAnthropicServer, transport: str) -> None:
    anthropic_server.queue(FakeReply(text="late", delay=2.0))
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(CONVERSATION, [], ModelSettings(timeout=0.1))
    assert info.value.kind is ErrorKind.TIMEOUT and info.value.retryable


def test_a_dropped_connection_is_a_connection_error(
    anthropic_server: FakeAnthropicServer, transport: str
) -> None:
    anthropic_server.queue(FakeReply(drop=True))
    with pytest.raises(ModelError) as info:
        model_for(anthropic_server, transport).complete(CONVERSATION, [], FAST)
    assert info.value.kind is ErrorKind.CONNECTION


def test_an_unknown_transport_is_refused() -> None:
    with pytest.raises(ValueError, match="sdk, http"):
        AnthropicModel(name="x", model="m", transport="curl")
