"""The real Router over real OpenAICompatModels and the fake server: retries, Retry-After, timeouts, fallback.

Every test runs once per transport (the `transport` fixture): the SDK and the stdlib one must fail alike."""

from __future__ import annotations

import socket

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.llm.samples import FAST

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.openai_compat import OpenAICompatModel
from grove.llm.router import RetryPolicy, Router, RouterEvent
from grove.llm.types import ModelSettings

HELLO = [{"role": "user", "content": "hello"}]


def model_at(
    url: str, transport: str, name: str = "openai-compat:fake", key_env: str = "GROVE_API_KEY"
) -> OpenAICompatModel:
    return OpenAICompatModel(
        name=name, model="fake-model", base_url=url, key_env=key_env, transport=transport
    )


def router(*models: OpenAICompatModel, sleeps: object, events: list[RouterEvent] | None = None) -> Router:
    return Router(
        list(models),
        retry=RetryPolicy(attempts=4, base_delay=1.0, max_delay=60.0),
        sleep=sleeps,  # type: ignore[arg-type]
        on_event=events.append if events is not None else None,
    )


def test_429_with_retry_after_is_retried_after_that_delay(
    openai_server: FakeOpenAIServer, sleeps, transport: str
) -> None:
    openai_server.queue(FakeReply(status=429, headers={"Retry-After": "7"}), FakeReply(text="done"))
    result = router(model_at(openai_server.url, transport), sleeps=sleeps).complete(HELLO, [], FAST)
    assert result.text == "done"
    assert sleeps.delays == [7.0]
    assert len(openai_server.requests) == 2


def test_retry_after_ms_wins_over_seconds(openai_server: FakeOpenAIServer, sleeps, transport: str) -> None:
    headers = {"retry-after-ms": "250", "retry-after": "9"}
    openai_server.queue(FakeReply(status=429, headers=headers), FakeReply(text="done"))
    router(model_at(openai_server.url, transport), sleeps=sleeps).complete(HELLO, [], FAST)
    assert sleeps.delays == [0.25]


def test_two_500s_then_success(openai_server: FakeOpenAIServer, sleeps, transport: str) -> None:
    openai_server.queue(FakeReply(status=500), FakeReply(status=500), FakeReply(text="third time"))
    events: list[RouterEvent] = []
    r = router(model_at(openai_server.url, transport), sleeps=sleeps, events=events)
    assert r.complete(HELLO, [], FAST).text == "third time"
    assert [(e.action, e.error.kind, e.error.status) for e in events] == [
        ("retry", ErrorKind.SERVER_ERROR, 500),
        ("retry", ErrorKind.SERVER_ERROR, 500),
    ]
    # full jitter: attempt n waits within [0, base * 2^n]
    assert 0 <= sleeps.delays[0] <= 1.0 and 0 <= sleeps.delays[1] <= 2.0
    assert len(openai_server.requests) == 3


def test_read_timeout_is_retried_and_then_succeeds(
    openai_server: FakeOpenAIServer, sleeps, transport: str
) -> None:
    openai_server.queue(FakeReply(text="too late", delay=3.0), FakeReply(text="on time"))
    events: list[RouterEvent] = []
    r = router(model_at(openai_server.url, transport), sleeps=sleeps, events=events)
    result = r.complete(HELLO, [], ModelSettings(timeout=0.3))
    assert result.text == "on time"
    assert [e.error.kind for e in events] == [ErrorKind.TIMEOUT]


def test_401_fails_at_once_naming_the_key_variable(
    openai_server: FakeOpenAIServer, sleeps, transport: str
) -> None:
    openai_server.queue(FakeReply(status=401))
    r = router(model_at(openai_server.url, transport, key_env="MY_PROXY_KEY"), sleeps=sleeps)
    with pytest.raises(ModelError) as info:
        r.complete(HELLO, [], FAST)
    assert info.value.kind is ErrorKind.AUTH and info.value.status == 401
    assert "MY_PROXY_KEY" in str(info.value) and "export MY_PROXY_KEY=" in str(info.value)
    assert len(openai_server.requests) == 1 and sleeps.delays == []


def test_context_overflow_is_classified_and_not_retried(
    openai_server: FakeOpenAIServer, sleeps, transport: str
) -> None:
    body = {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your messages resulted "
            "in 130000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    openai_server.queue(FakeReply(status=400, error_body=body))
    with pytest.raises(ModelError) as info:
        router(model_at(openai_server.url, transport), sleeps=sleeps).complete(HELLO, [], FAST)
    assert info.value.kind is ErrorKind.CONTEXT_OVERFLOW and info.value.status == 400
    assert len(openai_server.requests) == 1


def test_dead_primary_falls_back_to_the_next_model(
    openai_server: FakeOpenAIServer, sleeps, transport: str
) -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        dead_url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    openai_server.queue(FakeReply(text="from the fallback"))
    events: list[RouterEvent] = []
    r = router(
        model_at(dead_url, transport, name="primary"),
        model_at(openai_server.url, transport, name="backup"),
        sleeps=sleeps,
        events=events,
    )
    result = r.complete(HELLO, [], FAST)
    assert result.text == "from the fallback" and result.model == "backup"
    assert [e.action for e in events] == ["retry", "retry", "retry", "fallback"]
    assert {e.error.kind for e in events} == {ErrorKind.CONNECTION}


def test_repeated_503_falls_back(sleeps, transport: str) -> None:
    with FakeOpenAIServer(default=FakeReply(status=503)) as bad, FakeOpenAIServer() as good:
        good.queue(FakeReply(text="backup answer"))
        events: list[RouterEvent] = []
        r = router(
            model_at(bad.url, transport, name="primary"),
            model_at(good.url, transport, name="backup"),
            sleeps=sleeps,
            events=events,
        )
        assert r.complete(HELLO, [], FAST).text == "backup answer"
        assert len(bad.requests) == 4 and len(good.requests) == 1
        assert events[-1].action == "fallback" and events[-1].error.kind is ErrorKind.OVERLOADED


def test_dropped_connection_is_a_connection_error(
    openai_server: FakeOpenAIServer, sleeps, transport: str
) -> None:
    openai_server.queue(FakeReply(drop=True), FakeReply(text="back"))
    events: list[RouterEvent] = []
    assert (
        router(model_at(openai_server.url, transport), sleeps=sleeps, events=events)
        .complete(HELLO, [], FAST)
        .text
        == "back"
    )
    assert [e.error.kind for e in events] == [ErrorKind.CONNECTION]


def test_streaming_retry_after_a_429(openai_server: FakeOpenAIServer, sleeps, transport: str) -> None:
    openai_server.queue(FakeReply(status=429, headers={"retry-after": "2"}), FakeReply(text="streamed fine"))
    deltas: list[str] = []
    result = router(model_at(openai_server.url, transport), sleeps=sleeps).complete(
        HELLO, [], FAST, on_text=deltas.append
    )
    assert "".join(deltas) == result.text == "streamed fine"
    assert sleeps.delays == [2.0]


def test_a_stream_cut_short_is_retried_not_taken_as_the_answer(
    openai_server: FakeOpenAIServer, sleeps, transport: str
) -> None:
    openai_server.queue(FakeReply(text="The answer is", cut_stream=True), FakeReply(text="The answer is 42."))
    events: list[RouterEvent] = []
    r = router(model_at(openai_server.url, transport), sleeps=sleeps, events=events)
    assert r.complete(HELLO, [], FAST, on_text=lambda _: None).text == "The answer is 42."
    assert [e.error.kind for e in events] == [ErrorKind.CONNECTION]
