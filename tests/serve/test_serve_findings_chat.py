"""Issue 33's findings about the chat API, one test each: conversation identity (`user` is attribution), a
stateless client's history, system messages, fields honoured or refused, audio parts, GET /v1/models/{id},
CORS for the official browser SDK."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi", reason="grove serve needs the serve extra")

from fastapi.testclient import TestClient
from tests.serve.conftest import make_app

from grove.config import Settings
from grove.llm.script import ScriptModel


def chat(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "grove", "messages": [{"role": "user", "content": text}], **extra}


@pytest.fixture
def seen(settings: Settings) -> tuple[TestClient, ScriptModel]:
    model = ScriptModel(lambda messages, tools: "ok", name="script:ok")
    app = make_app(settings, model=model)
    key = app.state.grove.keys.add("seen")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        yield c, model


def test_the_user_field_does_not_merge_an_end_users_chats(seen: tuple[TestClient, ScriptModel]) -> None:
    client, model = seen
    client.post("/v1/chat/completions", json=chat("my secret is plum-77", user="alice"))
    client.post("/v1/chat/completions", json=chat("what is my secret?", user="alice"))
    said = [str(m.get("content")) for m in model.requests[-1][0]]
    assert not any("plum-77" in s for s in said)


def test_a_user_with_a_space_is_accepted(client: TestClient) -> None:
    assert client.post("/v1/chat/completions", json=chat("hi", user="Ada Lovelace")).status_code == 200


def test_a_stateless_clients_history_continues_one_session(seen: tuple[TestClient, ScriptModel]) -> None:
    client, model = seen
    history = [{"role": "system", "content": "answer in French"}, {"role": "user", "content": "one"}]
    first = client.post("/v1/chat/completions", json={"model": "grove", "messages": history})
    history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "two"}]
    second = client.post("/v1/chat/completions", json={"model": "grove", "messages": history})
    assert first.headers["X-Grove-Session"] == second.headers["X-Grove-Session"]
    sent = model.requests[-1][0]
    users = [m["content"] for m in sent if m["role"] == "user"]
    assert users == ["one", "two"]  # each message once, none pasted into another
    assert {"role": "system", "content": "answer in French"} in [
        {"role": m["role"], "content": m["content"]} for m in sent
    ]


def test_a_new_clients_history_seeds_the_session_as_messages(seen: tuple[TestClient, ScriptModel]) -> None:
    client, model = seen
    history = [
        {"role": "developer", "content": "be brief"},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": "second"},
    ]
    client.post("/v1/chat/completions", json={"model": "grove", "messages": history})
    roles = [(m["role"], m["content"]) for m in model.requests[-1][0][1:]]
    assert roles == [("system", "be brief"), ("user", "first"), ("assistant", "noted"), ("user", "second")]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("n", 2),
        ("tool_choice", "required"),
        ("response_format", {"type": "json_object"}),
        ("logprobs", True),
    ],
)
def test_a_field_grove_cannot_honour_is_refused_by_name(client: TestClient, field: str, value: Any) -> None:
    r = client.post("/v1/chat/completions", json=chat("hi", **{field: value}))
    assert r.status_code == 400
    assert r.json()["error"]["param"] == field and field in r.json()["error"]["message"]


def test_defaults_of_those_fields_are_fine(client: TestClient) -> None:
    extra = {"n": 1, "tool_choice": "auto", "response_format": {"type": "text"}, "tools": []}
    assert client.post("/v1/chat/completions", json=chat("hi", **extra)).status_code == 200


def test_max_tokens_and_temperature_reach_the_model(settings: Settings) -> None:
    asked: list[Any] = []

    class Recording(ScriptModel):
        def complete(self, messages: Any, tools: Any, settings: Any, on_text: Any = None) -> Any:
            asked.append(settings)
            return super().complete(messages, tools, settings, on_text)

    app = make_app(settings, model=Recording(lambda m, t: "ok", name="script:rec"))
    key = app.state.grove.keys.add("k")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        c.post("/v1/chat/completions", json=chat("hi", max_tokens=7, temperature=0.25))
        assert (asked[-1].max_tokens, asked[-1].temperature) == (7, 0.25)
        c.post("/v1/chat/completions", json=chat("hi", max_completion_tokens=9))
        assert asked[-1].max_tokens == 9


def test_audio_parts_are_refused_not_dropped(client: TestClient) -> None:
    content = [
        {"type": "text", "text": "what is this?"},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    ]
    r = client.post(
        "/v1/chat/completions", json={"model": "grove", "messages": [{"role": "user", "content": content}]}
    )
    assert r.status_code == 400 and "input_audio" in r.json()["error"]["message"]


def test_a_model_can_be_retrieved(client: TestClient) -> None:
    r = client.get("/v1/models/grove")
    assert r.status_code == 200 and r.json()["id"] == "grove" and r.json()["object"] == "model"
    assert client.get("/v1/models/nope").status_code == 404


def test_cors_allows_the_official_sdks_own_headers(settings: Settings) -> None:
    with TestClient(make_app(settings, cors_origins=["http://127.0.0.1:5173"])) as c:
        r = c.options(
            "/v1/responses",
            headers={
                "Origin": "http://127.0.0.1:5173",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type,x-stainless-os,"
                "x-stainless-lang,x-stainless-package-version,x-stainless-retry-count,x-stainless-timeout",
            },
        )
        assert r.status_code == 200
        assert "x-stainless-retry-count" in r.headers["access-control-allow-headers"].lower()


def test_docs_are_off_and_the_schema_is_behind_a_key(settings: Settings) -> None:
    with TestClient(make_app(settings)) as c:
        assert c.get("/docs").status_code == 404 and c.get("/openapi.json").status_code == 404
    app = make_app(settings, openapi=True)
    key = app.state.grove.keys.add("k")
    with TestClient(app) as c:
        assert c.get("/openapi.json").status_code == 401
        assert c.get("/openapi.json", headers={"Authorization": f"Bearer {key}"}).status_code == 200
