"""The dashboard in a real browser (Debian's chromium driven by Playwright, no browser download): log in, see
every page (a screenshot of each kept as an artifact), watch the board and the approvals update live, approve
the command a real Session is waiting on, roll a skill back; no console errors along the way."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests need playwright (pip install playwright)"
)
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
if CHROMIUM is None:
    pytest.skip("browser tests need Debian's chromium (apt-get install chromium)", allow_module_level=True)

from tests.serve.conftest import make_app  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.kanban.open import board_location, open_board  # noqa: E402
from grove.llm.script import ScriptModel  # noqa: E402
from grove.runtime import Profile, Session  # noqa: E402
from grove.serve.server import start_in_thread  # noqa: E402

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PAGES = ["sessions", "skills", "memory", "kanban", "evolve", "approvals", "settings"]


def artifacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GROVE_TEST_ARTIFACTS") or tmp_path) / "dashboard-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_click_through_in_chromium(settings: Settings, seeded: dict[str, str], tmp_path: Path) -> None:
    app = make_app(settings)
    # the operator sees every session and the pages about grove itself
    key = app.state.grove.keys.add("operator", admin=True)
    guest = app.state.grove.keys.add("guest")  # sees only the sessions it started
    queue = app.state.grove.approvals
    running = start_in_thread(app)
    base = f"http://{running.host}:{running.port}"
    shots = artifacts(tmp_path)
    errors: list[str] = []
    answers: list[str | None] = []
    turn: dict[str, Any] = {}
    worker: threading.Thread | None = None
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: d.accept())
            page.set_default_timeout(15_000)

            page.goto(f"{base}/skills")  # not logged in: the login page, then back here
            page.fill("input[name=key]", key)
            page.click("button[type=submit]")
            page.wait_for_url(f"{base}/skills")
            for name in PAGES:
                page.goto(f"{base}/{name}")
                page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
            page.goto(f"{base}/evolve/{seeded['run']}")
            page.screenshot(path=str(shots / "evolve-run.png"), full_page=True)
            page.goto(f"{base}/sessions?q=fixup")
            assert page.locator(f"a[href='/sessions/{seeded['session']}']").count() >= 1
            guest_page = browser.new_context().new_page()
            guest_page.goto(f"{base}/sessions")
            guest_page.fill("input[name=key]", guest)
            guest_page.click("button[type=submit]")
            guest_page.wait_for_url(f"{base}/sessions")
            guest_page.goto(f"{base}/sessions?q=fixup")
            assert guest_page.locator(f"a[href='/sessions/{seeded['session']}']").count() == 0
            assert guest_page.goto(f"{base}/sessions/{seeded['session']}").status == 404  # type: ignore[union-attr]
            guest_page.close()

            # the board is live: a task added now shows up without a reload
            page.goto(f"{base}/kanban")
            board = open_board(board_location(None, settings.home))
            board.add("Added while you watch")
            getattr(board, "close", lambda: None)()
            page.wait_for_selector("text=Added while you watch")

            # a real Session whose terminal command needs approval waits on the dashboard's queue
            page.goto(f"{base}/approvals")
            ask = queue.approver("chromium test")

            def approver(request: Any) -> str | None:
                answers.append(ask(request))
                return answers[-1]

            model = ScriptModel(
                [
                    {
                        "tool_calls": [
                            {"name": "terminal", "arguments": {"command": "git push --force origin main"}}
                        ]
                    },
                    "pushed",
                ]
            )
            workspace = tmp_path / "ws"
            workspace.mkdir()
            profile = Profile(
                source="test",
                toolsets=["terminal"],
                allow_terminal=True,
                workspace=workspace,
                approver=approver,
                model=model,
            )

            def run() -> None:
                session = Session.open(settings, profile, None)
                try:
                    turn["result"] = session.run_turn("push it")
                finally:
                    session.close()

            worker = threading.Thread(target=run, daemon=True)
            worker.start()
            page.wait_for_selector("section.approval pre.command:has-text('git push --force origin main')")
            page.screenshot(path=str(shots / "approvals-waiting.png"), full_page=True)
            page.click("section.approval button.approve")
            page.wait_for_selector("text=answered once")
            worker.join(30)
            assert answers == ["once"] and turn["result"].answer == "pushed"
            page.wait_for_selector("text=nothing is waiting for an answer")

            # roll the skill back to before its first change, from its history
            page.goto(f"{base}/skills/git-tidy")
            page.screenshot(path=str(shots / "skill-history.png"), full_page=True)
            page.click("details.version:has(button:has-text('Roll back to v1')) summary")  # folded: open it
            page.click("button:has-text('Roll back to v1')")
            page.wait_for_selector("text=rolled 'git-tidy' back to version 1")
            text = (settings.home / "skills" / "git-tidy" / "SKILL.md").read_text()
            assert "pytest -q" not in text and "force-with-lease" not in text
            browser.close()
    finally:
        if worker is not None and worker.is_alive():
            for pending in queue.pending():
                queue.answer(pending.id, "deny")
            worker.join(30)
        running.stop()
    print(f"dashboard screenshots: {shots}")
    assert sorted(p.name for p in shots.glob("*.png")) == sorted(
        [f"{n}.png" for n in PAGES] + ["evolve-run.png", "approvals-waiting.png", "skill-history.png"]
    )
    assert errors == [], errors
