"""The session page lists its workspace checkpoints with an Undo button; undo is owner-checked and refuses over
a change the user made since."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from tests.serve.dashboard.conftest import BASE, csrf_of

from grove.checkpoints.store import CheckpointStore
from grove.config import Settings


def _turn(settings: Settings, ws: Path, sid: str) -> CheckpointStore:
    cps = CheckpointStore(settings.home, ws, settings.checkpoints)
    (ws / "plan.md").write_text("v1\n")
    cp = cps.take(sid, "rewrite the plan")
    (ws / "plan.md").write_text("ruined\n")
    cps.seal(cp)
    return cps


def test_undo_from_the_session_page(
    logged_in: TestClient, settings: Settings, seeded: dict[str, str], workspace: Path
) -> None:
    sid = seeded["session"]
    cps = _turn(settings, workspace, sid)
    page = logged_in.get(f"/sessions/{sid}").text
    assert "Checkpoints" in page and "rewrite the plan" in page
    csrf = csrf_of(logged_in, f"/sessions/{sid}")
    cp = cps.list()[0].id
    (workspace / "plan.md").write_text("the user's\n")
    r = logged_in.post(
        f"/sessions/{sid}/undo", data={"checkpoint": cp, "csrf": csrf}, headers={"Origin": BASE}
    )
    assert r.status_code == 303 and "error=" in r.headers["location"]
    assert (workspace / "plan.md").read_text() == "the user's\n"
    (workspace / "plan.md").write_text("ruined\n")
    r = logged_in.post(
        f"/sessions/{sid}/undo", data={"checkpoint": cp, "csrf": csrf}, headers={"Origin": BASE}
    )
    assert r.status_code == 303 and "done=" in r.headers["location"], r.headers["location"]
    assert (workspace / "plan.md").read_text() == "v1\n"


def test_another_keys_session_cannot_be_undone(
    dash: Any, browser_client: TestClient, settings: Settings, seeded: dict[str, str], workspace: Path
) -> None:
    sid = seeded["session"]
    cps = _turn(settings, workspace, sid)
    key = dash.state.grove.keys.add("plain")
    r = browser_client.post("/login", data={"key": key, "next": "/sessions"}, headers={"Origin": BASE})
    assert r.status_code == 303
    csrf = csrf_of(browser_client, "/sessions")
    data = {"checkpoint": cps.list()[0].id, "csrf": csrf}
    r = browser_client.post(f"/sessions/{sid}/undo", data=data, headers={"Origin": BASE})
    assert r.status_code == 404
    assert (workspace / "plan.md").read_text() == "ruined\n"
