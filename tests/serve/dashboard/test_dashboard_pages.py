"""Every dashboard page over a seeded GROVE_HOME (sessions with usage and search, skills with history diffs,
memory, kanban, an evolution run with its plot, approvals, settings with secrets masked)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")

from fastapi.testclient import TestClient
from tests.serve.dashboard.conftest import csrf_of


def test_every_page_shows_the_seeded_home(logged_in: TestClient, seeded: dict[str, str]) -> None:
    sessions = logged_in.get("/sessions")
    assert sessions.status_code == 200
    assert "Tidy the release branch" in sessions.text and "1200/85" in sessions.text  # usage per session
    found = logged_in.get("/sessions", params={"q": "fixup"})
    assert seeded["session"] in found.text and "nothing found" not in found.text
    assert "nothing found" in logged_in.get("/sessions", params={"q": "zebra"}).text
    one = logged_in.get(f"/sessions/{seeded['session']}")
    assert "please tidy the release branch" in one.text and "Squashed 3 fixup commits" in one.text
    skills = logged_in.get("/skills").text
    assert "git-tidy" in skills and "Tidy a feature branch" in skills
    skill = logged_in.get("/skills/git-tidy").text
    # the history, newest first, each change with its diff
    assert skill.index("push safely") < skill.index("say how to run them")
    assert '<span class="add">+4. push with `git push --force-with-lease`' in skill
    assert "Roll back to v1" in skill and "Roll back to v2" in skill
    memory = logged_in.get("/memory").text
    assert (
        "The repo uses pytest." in memory and "Prefers short answers." in memory and "MEMORY.md [" in memory
    )
    board = logged_in.get("/kanban").text
    assert "Write the release notes" in board and 'data-poll="/kanban/board"' in board
    assert "Check the changelog links" in logged_in.get("/kanban/board").text
    runs = logged_in.get("/evolve").text
    assert seeded["run"] in runs
    run = logged_in.get(f"/evolve/{seeded['run']}").text
    assert "test before: accuracy 50.0%" in run
    pytest.importorskip("matplotlib", reason="the front plot needs matplotlib (the plot extra)")
    png = logged_in.get(f"/evolve/{seeded['run']}/front.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    assert "nothing is waiting" in logged_in.get("/approvals").text
    assert "Effective settings" in logged_in.get("/settings").text


def test_unknown_things_are_404_pages(logged_in: TestClient) -> None:
    assert logged_in.get("/sessions/nope").status_code == 404
    assert logged_in.get("/skills/nope").status_code == 404
    assert logged_in.get("/evolve/nope").status_code == 404
    assert logged_in.get("/evolve/..%2F..%2Fetc/front.png").status_code in (401, 404)
    assert logged_in.get("/static/../router.py").status_code == 404


def test_pin_and_rollback_change_the_skill(logged_in: TestClient, settings: Any) -> None:
    csrf = csrf_of(logged_in, "/skills/git-tidy")
    origin = {"Origin": "http://testserver"}
    r = logged_in.post("/skills/git-tidy/pin", data={"csrf": csrf, "pinned": "1"}, headers=origin)
    assert r.status_code == 303 and "pinned" in logged_in.get(r.headers["location"]).text
    assert "grove.pinned" in (settings.home / "skills" / "git-tidy" / "SKILL.md").read_text()
    r = logged_in.post("/skills/git-tidy/rollback", data={"csrf": csrf, "version": "1"}, headers=origin)
    assert r.status_code == 303 and "rolled" in r.headers["location"]
    text = (settings.home / "skills" / "git-tidy" / "SKILL.md").read_text()
    assert "pytest -q" not in text and "force-with-lease" not in text  # as before change 1
    r = logged_in.post("/skills/git-tidy/rollback", data={"csrf": csrf, "version": "99"}, headers=origin)
    assert "error=" in r.headers["location"] and "no%20version%2099" in r.headers["location"]


def test_an_approval_is_answered_from_the_dashboard(logged_in: TestClient, dash: Any) -> None:
    import threading
    from types import SimpleNamespace

    queue = dash.state.grove.approvals
    request = SimpleNamespace(
        command="git push --force origin main", reasons="rewrites history", session_id=None
    )
    request.timeout = 30.0
    out: dict[str, Any] = {}
    asker = threading.Thread(target=lambda: out.update(answer=queue.ask("api operator:c1", request)))
    asker.start()
    version = 0
    while not queue.pending():
        version = queue.wait_change(version, 5)
    page = logged_in.get("/approvals").text
    assert "git push --force origin main" in page and "rewrites history" in page
    ident = queue.pending()[0].id
    csrf = csrf_of(logged_in, "/approvals")
    r = logged_in.post(
        f"/approvals/{ident}", data={"csrf": csrf, "answer": "once"}, headers={"Origin": "http://testserver"}
    )
    asker.join(5)
    assert out["answer"] == "once" and "answered" in r.headers["location"]
    again = logged_in.post(f"/approvals/{ident}", data={"csrf": csrf, "answer": "once"})
    assert "no%20longer%20waiting" in again.headers["location"]
