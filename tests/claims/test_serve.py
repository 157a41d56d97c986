"""grove serve: a chat completion carries the answer's checked claims (grove_claims), and the key's requests count
in its own spend scope."""

from __future__ import annotations

import pytest
from tests.serve.conftest import make_app

from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.spend.guard import LEDGER_FILE
from grove.spend.ledger import Ledger

pytest.importorskip("fastapi")


def test_a_chat_completion_carries_its_checked_claims(settings: Settings) -> None:
    from fastapi.testclient import TestClient

    app = make_app(settings, model=ScriptModel(lambda m, t: "I wrote report.md and all tests pass."))
    key = app.state.grove.keys.add("alice")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as client:
        r = client.post(
            "/v1/chat/completions", json={"model": "grove", "messages": [{"role": "user", "content": "go"}]}
        )
    assert r.status_code == 200, r.text
    claims = {c["kind"]: c["verdict"] for c in r.json()["grove_claims"]}
    assert claims == {"write": "contradicted", "tests_pass": "unverifiable"}  # no tool ran at all
    assert Ledger(settings.home / LEDGER_FILE).totals("key:alice").day_tokens > 0  # counted under the key
