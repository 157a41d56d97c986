"""Red team: a `grove serve` client key owns its sessions and approvals; another plain key can neither read them
on the dashboard nor answer them. Only an admin key sees everything."""

from __future__ import annotations

import re
import threading
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")

from fastapi.testclient import TestClient
from tests.serve.conftest import make_app

from grove.config import Settings

BASE = "http://testserver"
SECRET = "victim-secret-plan-xyzzy"
ATTEMPTS = [
    "list the victim's session on /sessions",
    "open the victim's session by id",
    "open the victim's session by id prefix",
    "search the victim's messages",
    "see the victim's pending approval",
    "answer the victim's approval",
    "answer the victim's approval with every answer word",
    "read settings, memory, skills, kanban as a plain key",
]


@pytest.fixture
def world(settings: Settings) -> dict[str, Any]:
    app = make_app(settings)
    keys = app.state.grove.keys
    victim, attacker, admin = keys.add("victim"), keys.add("attacker"), keys.add("boss", admin=True)
    with TestClient(app, headers={"Authorization": f"Bearer {victim}"}) as api:
        r = api.post(
            "/v1/chat/completions", json={"model": "grove", "messages": [{"role": "user", "content": SECRET}]}
        )
        assert r.status_code == 200, r.text
        sid = r.headers["X-Grove-Session"]
    queue = app.state.grove.approvals
    request = SimpleNamespace(command="rm -rf .git", reasons="deletes history", session_id=sid, timeout=30.0)
    out: dict[str, Any] = {}
    asker = threading.Thread(target=lambda: out.update(answer=queue.ask("api victim: c", request, "victim")))
    asker.start()
    version = 0
    while not queue.pending(everyone=True):
        version = queue.wait_change(version, 5)
    ident = queue.pending(everyone=True)[0].id
    yield {"app": app, "attacker": attacker, "admin": admin, "sid": sid, "ident": ident, "out": out}
    if asker.is_alive():
        queue.answer(ident, "deny", everyone=True)
    asker.join(10)


def _login(app: Any, key: str) -> TestClient:
    client = TestClient(app, base_url=BASE, follow_redirects=False)
    r = client.post("/login", data={"key": key, "next": "/sessions"}, headers={"Origin": BASE})
    assert r.status_code == 303, r.text
    return client


def _csrf(client: TestClient) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get("/approvals").text)
    assert found
    return found.group(1)


def test_a_plain_key_never_reads_another_keys_session(world: dict[str, Any]) -> None:
    c = _login(world["app"], world["attacker"])
    sid = world["sid"]
    escapes = []
    if sid in c.get("/sessions").text:
        escapes.append("listed")
    for ref in (sid, sid[:8]):
        r = c.get(f"/sessions/{ref}")
        if r.status_code == 200 or SECRET in r.text:
            escapes.append(f"opened {ref}")
    if sid in c.get("/sessions", params={"q": "xyzzy"}).text:
        escapes.append("search")
    for path in ("/settings", "/memory", "/skills", "/kanban", "/kanban/board", "/evolve"):
        if c.get(path).status_code == 200:
            escapes.append(path)
    assert escapes == []


def test_a_plain_key_neither_sees_nor_answers_another_keys_approval(world: dict[str, Any]) -> None:
    c = _login(world["app"], world["attacker"])
    ident = world["ident"]
    assert "rm -rf .git" not in c.get("/approvals").text
    assert "rm -rf .git" not in c.get("/approvals/list").text
    token = _csrf(c)
    for answer in ("always", "session", "once"):
        r = c.post(f"/approvals/{ident}", data={"answer": answer, "csrf": token}, headers={"Origin": BASE})
        assert r.status_code in (403, 404), f"answering another key's approval gave {r.status_code}"
    queue = world["app"].state.grove.approvals
    assert [p.id for p in queue.pending(everyone=True)] == [ident], "the attacker's answer was taken"


def test_an_admin_key_sees_and_answers_everything(world: dict[str, Any]) -> None:
    c = _login(world["app"], world["admin"])
    assert world["sid"] in c.get("/sessions").text
    assert c.get(f"/sessions/{world['sid']}").status_code == 200
    assert c.get("/settings").status_code == 200
    assert "rm -rf .git" in c.get("/approvals").text
    token = _csrf(c)
    c.post(f"/approvals/{world['ident']}", data={"answer": "deny", "csrf": token}, headers={"Origin": BASE})
    assert world["app"].state.grove.approvals.pending(everyone=True) == []
