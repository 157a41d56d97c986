"""The dashboard's spend page (each scope's day and month against its caps; a plain key sees only its own) and a
session page's checked claims."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")

from fastapi.testclient import TestClient
from tests.serve.dashboard.conftest import BASE

from grove.claims.store import save_verdicts
from grove.claims.turn import check_answer
from grove.config import Settings
from grove.store.sessions import SessionStore


def test_spend_per_scope_and_a_plain_key_sees_only_its_own(
    logged_in: TestClient, dash: Any, browser_client: TestClient
) -> None:
    alice = dash.state.grove.keys.add("alice")
    r = logged_in.post(
        "/v1/chat/completions",
        json={"model": "grove", "messages": [{"role": "user", "content": "hello"}]},
        headers={"Authorization": f"Bearer {alice}"},
    )
    assert r.status_code == 200, r.text
    page = logged_in.get("/spend")
    assert page.status_code == 200 and "key:alice" in page.text and "<td>all</td>" in page.text
    assert "day resets" in page.text
    with TestClient(dash, base_url=BASE, follow_redirects=False) as other:
        login = other.post("/login", data={"key": alice, "next": "/spend"}, headers={"Origin": BASE})
        assert login.status_code == 303
        own = other.get("/spend").text
    assert "key:alice" in own and "<td>all</td>" not in own


def test_a_session_page_shows_its_checked_claims(
    logged_in: TestClient, settings: Settings, seeded: dict[str, str]
) -> None:
    store = SessionStore.open(settings.db_path)
    save_verdicts(
        store.db, seeded["session"], None, check_answer("I wrote report.md and all tests pass.", [])
    )
    store.db.close()
    page = logged_in.get(f"/sessions/{seeded['session']}").text
    assert 'id="claims"' in page and "contradicted" in page and "I wrote report.md" in page
    assert "unverifiable" in page
