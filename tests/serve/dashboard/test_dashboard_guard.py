"""Attacks on the dashboard: no login, a stolen page's form posted cross-site, a missing or wrong CSRF token, a
login forced by another site, an open redirect after login, script in stored text, framing, leaked secrets."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")

from fastapi.testclient import TestClient
from tests.serve.dashboard.conftest import BASE, csrf_of

PAGES = [
    "/",
    "/sessions",
    "/skills",
    "/skills/git-tidy",
    "/memory",
    "/kanban",
    "/evolve",
    "/approvals",
    "/settings",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_needs_a_login(browser_client: TestClient, path: str) -> None:
    r = browser_client.get(path)
    assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
    assert "git-tidy" not in r.text


def test_live_fragments_and_the_plot_need_a_login(browser_client: TestClient, seeded: dict[str, str]) -> None:
    for path in ("/kanban/board", "/approvals/list", f"/evolve/{seeded['run']}/front.png"):
        assert browser_client.get(path).status_code == 401


def test_posts_without_login_change_nothing(browser_client: TestClient, settings: Any) -> None:
    before = (settings.home / "skills" / "git-tidy" / "SKILL.md").read_text()
    r = browser_client.post("/skills/git-tidy/rollback", data={"version": "1"})
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    assert (settings.home / "skills" / "git-tidy" / "SKILL.md").read_text() == before


def test_a_wrong_key_is_refused_and_a_good_one_gives_a_cookie_not_the_key(
    browser_client: TestClient, dash_key: str
) -> None:
    r = browser_client.post("/login", data={"key": dash_key[:-2] + "xx"})
    assert r.status_code == 401 and "not a live client key" in r.text
    r = browser_client.post("/login", data={"key": dash_key})
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert dash_key not in cookie


def test_a_removed_key_ends_its_logins(logged_in: TestClient, dash: Any) -> None:
    assert logged_in.get("/skills").status_code == 200
    dash.state.grove.keys.remove("operator")
    assert logged_in.get("/skills").status_code == 303


def test_login_forced_by_another_site_is_refused(browser_client: TestClient, dash_key: str) -> None:
    r = browser_client.post("/login", data={"key": dash_key}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "set-cookie" not in r.headers


@pytest.mark.parametrize(
    "target", ["//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:x"]
)
def test_no_open_redirect_after_login(browser_client: TestClient, dash_key: str, target: str) -> None:
    r = browser_client.post("/login", data={"key": dash_key, "next": target})
    assert r.status_code == 303 and r.headers["location"] == "/"


@pytest.mark.parametrize(
    "csrf, origin",
    [
        (None, BASE),  # no token
        ("wrong", BASE),  # a guessed token
        ("right", "http://evil.example"),  # the right token from a page posted cross-site
        ("right", "null"),  # a sandboxed frame
    ],
)
def test_pin_needs_the_csrf_token_and_this_origin(
    logged_in: TestClient, settings: Any, csrf: str | None, origin: str
) -> None:
    token = csrf_of(logged_in, "/skills/git-tidy")
    form = {"pinned": "1"} | ({"csrf": token if csrf == "right" else csrf} if csrf else {})
    r = logged_in.post("/skills/git-tidy/pin", data=form, headers={"Origin": origin})
    assert r.status_code == 403
    assert "grove.pinned" not in (settings.home / "skills" / "git-tidy" / "SKILL.md").read_text()


def test_an_approval_needs_the_csrf_token_and_a_known_answer(logged_in: TestClient, dash: Any) -> None:
    import threading
    from types import SimpleNamespace

    queue = dash.state.grove.approvals
    request = SimpleNamespace(command="rm -rf build", reasons="deletes files", session_id=None, timeout=30.0)
    out: dict[str, Any] = {}
    asker = threading.Thread(target=lambda: out.update(answer=queue.ask("api x", request)))
    asker.start()
    version = 0
    while not queue.pending():
        version = queue.wait_change(version, 5)
    ident = queue.pending()[0].id
    assert logged_in.post(f"/approvals/{ident}", data={"answer": "always"}).status_code == 403
    token = csrf_of(logged_in, "/approvals")
    r = logged_in.post(f"/approvals/{ident}", data={"answer": "yes please", "csrf": token})
    assert "no%20longer%20waiting" in r.headers["location"] and queue.pending()
    logged_in.post(f"/approvals/{ident}", data={"answer": "deny", "csrf": token})
    asker.join(5)
    assert out["answer"] == "deny"


def test_stored_text_cannot_run_script_and_pages_cannot_be_framed(
    logged_in: TestClient, settings: Any
) -> None:
    from grove.store.sessions import SessionStore

    store = SessionStore.open(settings.db_path)
    sid = store.create_session("m", title="<script>alert(1)</script>")
    store.add_message(sid, {"role": "user", "content": '<img src=x onerror="alert(2)">'})
    store.db.close()
    listed = logged_in.get("/sessions")
    assert "<script>alert(1)" not in listed.text and "&lt;script&gt;alert(1)" in listed.text
    one = logged_in.get(f"/sessions/{sid}")
    assert "<img src=x" not in one.text and "&lt;img src=x" in one.text
    assert "frame-ancestors 'none'" in one.headers["content-security-policy"]
    assert "script-src 'self'" in one.headers["content-security-policy"]
    assert one.headers["x-frame-options"] == "DENY"


def test_settings_show_no_secret(logged_in: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-proj-" + "Zq8vT2mLx4Wn7Rk1Pa9Hs3Yd6Jf0Gc5Vb"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    page = logged_in.get("/settings").text
    assert secret not in page and secret[8:] not in page
    assert "OPENAI_API_KEY" in page and "sk-p…" in page
