"""The marks reach every remote entrance: a streamed chat completion's last chunk and a Responses API response
(whole or streamed) carry `grove_claims`; a chat platform's answer carries the marks line itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.serve.conftest import make_app

from grove.config import Settings
from grove.llm.script import ScriptModel

pytest.importorskip("fastapi")

ANSWER = "I wrote report.md and all tests pass."
EXPECTED = {"write": "contradicted", "tests_pass": "unverifiable"}  # no tool ran at all


def verdicts(claims: list[dict[str, Any]]) -> dict[str, str]:
    return {c["kind"]: c["verdict"] for c in claims}


def sse(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[6:])
        for line in text.splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]


def client_for(settings: Settings) -> Any:
    from fastapi.testclient import TestClient

    app = make_app(settings, model=ScriptModel(lambda m, t: ANSWER))
    key = app.state.grove.keys.add("alice")
    return TestClient(app, headers={"Authorization": f"Bearer {key}"})


def test_a_streamed_chat_completion_ends_with_its_checked_claims(settings: Settings) -> None:
    with client_for(settings) as client:
        r = client.post(
            "/v1/chat/completions",
            json={"model": "grove", "stream": True, "messages": [{"role": "user", "content": "go"}]},
        )
    assert r.status_code == 200, r.text
    chunks = sse(r.text)
    (last,) = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert verdicts(last["grove_claims"]) == EXPECTED
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == ANSWER


def test_a_response_carries_its_checked_claims_whole_and_streamed(settings: Settings) -> None:
    with client_for(settings) as client:
        whole = client.post("/v1/responses", json={"model": "grove", "input": "go"})
        streamed = client.post("/v1/responses", json={"model": "grove", "input": "go again", "stream": True})
        assert whole.status_code == 200 and streamed.status_code == 200, (whole.text, streamed.text)
        assert verdicts(whole.json()["grove_claims"]) == EXPECTED
        (done,) = [e for e in sse(streamed.text) if e["type"] == "response.completed"]
        assert verdicts(done["response"]["grove_claims"]) == EXPECTED
        kept = client.get(f"/v1/responses/{whole.json()['id']}")  # a stored response keeps them
        assert kept.status_code == 200 and verdicts(kept.json()["grove_claims"]) == EXPECTED


def test_a_chat_platform_answer_carries_the_marks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")
    from tests.gateway.fakes.runner import running
    from tests.gateway.fakes.webhook_receiver import Receiver, post_event
    from tests.gateway.helpers import bound_port, gateway_on

    from grove.gateway.webhook import WebhookAdapter

    monkeypatch.setenv("GROVE_WEBHOOK_SECRET", "s3cret")
    model = ScriptModel([{"text": ANSWER}, {"text": "Hello."}])
    with Receiver("s3cret") as receiver:
        gateway = gateway_on(
            WebhookAdapter, tmp_path, model, owners=["ada"], base_url=receiver.url + "/grove", port=0
        )
        with running(gateway):
            port = bound_port(gateway)
            post_event(port, "s3cret", {"id": "1", "chat": "c1", "user": "ada", "text": "write the report"})
            receiver.wait_for(lambda c: c.method == "message")
            post_event(port, "s3cret", {"id": "2", "chat": "c1", "user": "ada", "text": "hi"})
            receiver.wait_for(lambda c: c.method == "message" and c.params["text"] == "Hello.")
    first, second = receiver.texts("c1")
    assert first.startswith(ANSWER + "\n\n⚠ claims checked against this turn's tool calls: ")
    assert '✗ contradicted: "I wrote report.md"' in first and "? unverifiable" in first
    assert second == "Hello."  # an answer that claims nothing is sent as it is
