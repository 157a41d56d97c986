"""The OpenAI-compatible endpoints through FastAPI's TestClient: answers, memory per conversation, streaming,
and the guards (keys, rate limits, conversation isolation, CORS, bad input)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="grove serve needs the serve extra")

from fastapi.testclient import TestClient
from tests.serve.conftest import make_app

from grove.config import Settings


def chat(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "grove", "messages": [{"role": "user", "content": text}], **extra}


def test_models_lists_grove(client: TestClient) -> None:
    data = client.get("/v1/models").json()
    assert [m["id"] for m in data["data"]] == ["grove"]


def test_a_turn_answers_in_openai_shape(client: TestClient) -> None:
    r = client.post("/v1/chat/completions", json=chat("hello"))
    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "heard 1: hello"}
    assert r.headers["X-Grove-Conversation"].startswith("conv_")
    assert r.headers["X-Grove-Session"]


def test_second_turn_of_a_conversation_sees_the_first(client: TestClient) -> None:
    h = {"X-Grove-Conversation": "c1"}
    client.post("/v1/chat/completions", json=chat("my name is Ada"), headers=h)
    history = [
        {"role": "user", "content": "my name is Ada"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "what is my name?"},
    ]
    r = client.post("/v1/chat/completions", json={"model": "grove", "messages": history}, headers=h)
    # grove keeps the history itself: the resumed session gets only the new message, once
    assert r.json()["choices"][0]["message"]["content"] == "heard 2: my name is Ada | what is my name?"


def test_metadata_names_a_conversation(client: TestClient) -> None:
    client.post("/v1/chat/completions", json=chat("a", metadata={"conversation_id": "m1"}))
    r = client.post("/v1/chat/completions", json=chat("b", metadata={"conversation_id": "m1"}))
    assert r.json()["choices"][0]["message"]["content"] == "heard 2: a | b"


def test_streaming_sends_deltas_then_done(client: TestClient) -> None:
    with client.stream(
        "POST", "/v1/chat/completions", json=chat("hi", stream=True, stream_options={"include_usage": True})
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "heard 1: hi"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert "usage" in chunks[-1]


def test_responses_api_continues_by_previous_response_id(client: TestClient) -> None:
    first = client.post("/v1/responses", json={"model": "grove", "input": "remember 42"}).json()
    assert first["output_text"] == "heard 1: remember 42"
    second = client.post(
        "/v1/responses", json={"model": "grove", "input": "what?", "previous_response_id": first["id"]}
    ).json()
    assert second["output_text"] == "heard 2: remember 42 | what?"
    r = client.post(
        "/v1/responses", json={"model": "grove", "input": "x", "previous_response_id": "resp_nope"}
    )
    assert r.status_code == 404


# -- guards: written as an attacker would try them -------------------------------------------------------------


def test_no_key_and_wrong_keys_get_401(app: Any, key: str) -> None:
    with TestClient(app) as anon:
        assert anon.post("/v1/chat/completions", json=chat("hi")).status_code == 401
        assert anon.get("/v1/models").status_code == 401
        for bad in (
            "Bearer nope",
            f"Bearer {key[:-1]}{'y' if key.endswith('x') else 'x'}",  # right id, wrong secret
            f"Basic {key}",
            f"Bearer {key}{key}",
            "Bearer gsk_aaaaaaaaaaaa_" + "a" * 43,
            "",
        ):
            r = anon.post("/v1/chat/completions", json=chat("hi"), headers={"Authorization": bad})
            assert r.status_code == 401, bad
            assert r.json()["error"]["code"] == "invalid_api_key"
            assert r.headers["WWW-Authenticate"] == "Bearer"


def test_a_removed_key_stops_working(app: Any, key: str, client: TestClient) -> None:
    assert client.get("/v1/models").status_code == 200
    app.state.grove.keys.remove("tester")
    assert client.get("/v1/models").status_code == 401


def test_keys_are_stored_only_hashed(app: Any, key: str, settings: Settings) -> None:
    assert key.encode() not in settings.db_path.read_bytes()
    wal = settings.db_path.with_name("state.db-wal")
    assert not wal.exists() or key.encode() not in wal.read_bytes()


def test_a_flood_gets_429_with_retry_after(settings: Settings) -> None:
    app = make_app(settings, rate=60, burst=3)
    key = app.state.grove.keys.add("flood")
    other = app.state.grove.keys.add("calm")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        codes = [c.get("/v1/models").status_code for _ in range(5)]
        assert codes == [200, 200, 200, 429, 429]
        r = c.post("/v1/chat/completions", json=chat("hi"))
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        assert r.json()["error"]["type"] == "rate_limit_error"
        # another key has its own bucket
        assert c.get("/v1/models", headers={"Authorization": f"Bearer {other}"}).status_code == 200


def test_one_key_cannot_continue_another_keys_conversation(app: Any, client: TestClient) -> None:
    client.post("/v1/chat/completions", json=chat("secret plans"), headers={"X-Grove-Conversation": "shared"})
    intruder = app.state.grove.keys.add("intruder")
    r = client.post(
        "/v1/chat/completions",
        json=chat("what did they say?"),
        headers={"X-Grove-Conversation": "shared", "Authorization": f"Bearer {intruder}"},
    )
    assert r.json()["choices"][0]["message"]["content"] == "heard 1: what did they say?"


@pytest.mark.parametrize("conversation", ["../../etc", "a" * 129, "a b", "é"])
def test_bad_conversation_ids_are_refused(client: TestClient, conversation: str) -> None:
    r = client.post("/v1/chat/completions", json=chat("hi", metadata={"conversation_id": conversation}))
    assert r.status_code == 400
    assert "conversation id" in r.json()["error"]["message"]


def test_bad_requests_get_400_saying_what_is_wrong(client: TestClient) -> None:
    r = client.post("/v1/chat/completions", json={"model": "grove", "messages": []})
    assert r.status_code == 400 and "messages" in r.json()["error"]["message"]
    r = client.post(
        "/v1/chat/completions", json={"model": "grove", "messages": [{"role": "assistant", "content": "x"}]}
    )
    assert r.status_code == 400 and "last message" in r.json()["error"]["message"]
    r = client.post(
        "/v1/chat/completions", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400


def test_unknown_model_is_404_listing_the_served_ones(client: TestClient) -> None:
    r = client.post("/v1/chat/completions", json={**chat("hi"), "model": "script:/etc/passwd"})
    assert r.status_code == 404 and "grove" in r.json()["error"]["message"]


def test_cors_is_off_by_default_and_only_for_named_origins(settings: Settings) -> None:
    preflight = {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    with TestClient(make_app(settings)) as c:
        r = c.options("/v1/chat/completions", headers=preflight)
        assert "access-control-allow-origin" not in r.headers
    with TestClient(make_app(settings, cors_origins=["https://chat.example"])) as c:
        r = c.options("/v1/chat/completions", headers=preflight)
        assert "access-control-allow-origin" not in r.headers
        r = c.options("/v1/chat/completions", headers={**preflight, "Origin": "https://chat.example"})
        assert r.headers["access-control-allow-origin"] == "https://chat.example"


def test_an_oversized_body_is_refused_before_it_is_read(settings: Settings) -> None:
    app = make_app(settings, max_body_bytes=1000)
    key = app.state.grove.keys.add("big")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        r = c.post("/v1/chat/completions", json=chat("x" * 2000))
        assert r.status_code == 413 and "bytes" in r.json()["error"]["message"]

        def chunks() -> Any:  # no Content-Length: counted as it arrives
            yield b'{"model": "grove", "messages": [{"role": "user", "content": "'
            for _ in range(10):
                yield b"y" * 200
            yield b'"}]}'

        r = c.post("/v1/chat/completions", content=chunks(), headers={"Content-Type": "application/json"})
        assert r.status_code == 413
        assert c.post("/v1/chat/completions", json=chat("small")).status_code == 200


def test_on_loopback_only_local_host_names_are_answered(settings: Settings) -> None:
    """DNS rebinding: a web page whose name points at 127.0.0.1 must not reach the server (or the dashboard)."""
    app = make_app(settings, allowed_hosts=["127.0.0.1", "localhost"])
    key = app.state.grove.keys.add("local")
    with TestClient(app, base_url="http://evil.example", headers={"Authorization": f"Bearer {key}"}) as c:
        assert c.get("/v1/models").status_code == 400
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"Authorization": f"Bearer {key}"}) as c:
        assert c.get("/v1/models").status_code == 200


def test_a_failing_model_is_a_502_or_an_error_event_never_a_crash(settings: Settings) -> None:
    from grove.llm.errors import ErrorKind, ModelError
    from grove.llm.script import ScriptModel

    def broken(messages: Any, tools: Any) -> Any:
        return ModelError(ErrorKind.BAD_REQUEST, "scripted refusal", model="script:broken")

    app = make_app(settings, model=ScriptModel(broken, name="script:broken"))
    key = app.state.grove.keys.add("k")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        r = c.post("/v1/chat/completions", json=chat("hi"))
        assert r.status_code == 502 and "scripted refusal" in r.json()["error"]["message"]
        with c.stream("POST", "/v1/chat/completions", json=chat("hi", stream=True)) as s:
            events = [line[6:] for line in s.iter_lines() if line.startswith("data: ")]
        assert events[-1] == "[DONE]"
        assert "scripted refusal" in json.loads(events[-2])["error"]["message"]
