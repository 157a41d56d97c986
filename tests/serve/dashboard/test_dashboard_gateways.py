"""The dashboard's gateways page: each platform's connection as a running gateway publishes it (connected, then
reconnecting with its attempt and last error while a fake Signal daemon is down, connected again, stopped, down
when the gateway cannot start or stops reporting), and each gateway user's sessions to an admin only: two users
on one gateway never see each other's session, and a plain key sees neither."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from tests.gateway.fakes.runner import running
from tests.gateway.fakes.signal_daemon import FakeSignalDaemon
from tests.gateway.helpers import gateway_on
from tests.serve.conftest import make_app
from tests.serve.dashboard.conftest import BASE

from grove.config import Settings
from grove.gateway.link import STALE, LinkState
from grove.gateway.signal_cli import SignalAdapter
from grove.llm.script import ScriptModel

ADA, BOB, OWNER = "7ccae375-cd51-4c82-8b1e-7be3280aa485", "0d3e2f10-9999-4c82-8b1e-000000000b0b", "owner-uuid"
ADA_NO, BOB_NO, OWNER_NO = "+15551230001", "+15551230002", "+15551230000"


def echo(messages: list[dict[str, Any]], tools: list[Any]) -> str:
    return "noted: " + str([m for m in messages if m["role"] == "user"][-1]["content"])


@pytest.fixture
def daemon() -> Iterator[FakeSignalDaemon]:
    with FakeSignalDaemon() as srv:
        yield srv


@pytest.fixture
def app(settings: Settings) -> Any:
    return make_app(settings)


def client_for(app: Any, name: str, admin: bool) -> TestClient:
    key = app.state.grove.keys.add(name, admin=admin)
    client = TestClient(app, base_url=BASE, follow_redirects=False)
    r = client.post("/login", data={"key": key, "next": "/gateways"}, headers={"Origin": BASE})
    assert r.status_code == 303, r.text
    return client


def link_row(client: TestClient, platform: str) -> str:
    page = client.get("/gateways")
    assert page.status_code == 200, page.text
    found = re.search(rf'<tr class="link-\w+"><td>{platform}</td>.*?</tr>', page.text, re.DOTALL)
    assert found, page.text
    return found.group(0)


def until(check: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the dashboard never showed it"
        time.sleep(0.05)


def test_the_connection_state_of_a_running_gateway(
    daemon: FakeSignalDaemon, app: Any, settings: Settings, tmp_path: Path
) -> None:
    admin = client_for(app, "operator", admin=True)
    assert "no gateway has run yet" in admin.get("/gateways").text
    model = ScriptModel(echo)
    gateway = gateway_on(
        SignalAdapter, tmp_path, model, settings=settings, owners=[OWNER], base_url=daemon.url
    )
    adapter = gateway.adapter
    assert isinstance(adapter, SignalAdapter)
    adapter.backoff.first = adapter.backoff.ceiling = 0.5  # a retry the test can watch
    with running(gateway):
        daemon.wait_streams(1)
        until(lambda: "state-connected" in link_row(admin, "signal"))
        daemon.down = True  # the daemon restarts: the stream ends and new ones are refused
        daemon.drop()
        retrying = r"state-reconnecting.*attempt \d+, next try in [\d.]+ s; last error: HTTPStatusError"
        until(lambda: re.search(retrying, link_row(admin, "signal"), re.DOTALL))  # the 503s, one by one
        assert "503" in link_row(admin, "signal")
        daemon.down = False
        daemon.wait_streams(2)
        until(lambda: "state-connected" in link_row(admin, "signal"))
        daemon.user_says(OWNER, OWNER_NO, "still there?")
        daemon.wait(lambda p: str(p.get("message", "")).startswith("noted: still there?"))
    row = link_row(admin, "signal")
    assert "state-stopped" in row and "last error" not in row
    plain = client_for(app, "viewer", admin=False)
    assert "state-stopped" in link_row(plain, "signal")  # every key sees the platforms' state
    live = plain.get("/gateways/links")  # what the page polls
    assert live.status_code == 200 and "state-stopped" in live.text and "<html" not in live.text
    assert TestClient(app, base_url=BASE).get("/gateways/links").status_code == 401


def test_a_gateway_that_cannot_start_is_down_with_its_error(
    app: Any, settings: Settings, tmp_path: Path
) -> None:
    class Refused(SignalAdapter):
        async def connect(self, on_message: Any, on_button: Any) -> None:
            raise PermissionError("the daemon refused account +15550000000")

    gateway = gateway_on(Refused, tmp_path, ScriptModel([]), settings=settings, base_url="http://127.0.0.1:9")
    with pytest.raises(PermissionError), running(gateway):
        pass
    row = link_row(client_for(app, "operator", admin=True), "signal")
    assert "state-down" in row and "PermissionError: the daemon refused account +15550000000" in row


def test_a_gateway_that_stopped_reporting_counts_as_down() -> None:
    now = time.time()
    live = LinkState("irc", "connected", since=now - 600, pid=4242, seen_at=now - 1)
    silent = LinkState("irc", "connected", since=now - 600, pid=4242, seen_at=now - STALE - 1)
    assert live.shown(now) == "connected" and silent.shown(now) == "down"
    assert "no word from the gateway (pid 4242)" in silent.why(now)


def test_each_gateway_users_sessions_are_shown_to_an_admin_only(
    daemon: FakeSignalDaemon, settings: Settings, tmp_path: Path
) -> None:
    model = ScriptModel(echo)
    gateway = gateway_on(
        SignalAdapter,
        tmp_path,
        model,
        settings=settings,
        owners=[OWNER],
        allowed_users=[ADA, BOB],
        base_url=daemon.url,
    )
    with running(gateway):
        daemon.wait_streams(1)
        daemon.user_says(ADA, ADA_NO, "ada's secret is plum-7781")
        daemon.wait(lambda p: "plum-7781" in str(p.get("message", "")))
        daemon.user_says(BOB, BOB_NO, "bob's secret is kiwi-4410")
        daemon.wait(lambda p: "kiwi-4410" in str(p.get("message", "")))
        daemon.user_says(OWNER, OWNER_NO, "the owner's note is fig-1234")
        daemon.wait(lambda p: "fig-1234" in str(p.get("message", "")))
    app = make_app(gateway.settings)  # the dashboard reads the same config (who is an owner, who a user)
    admin = client_for(app, "operator", admin=True)
    page = admin.get("/gateways").text
    sections = re.findall(r'<section class="card account">(.*?)</section>', page, re.DOTALL)
    by_account = {next(a for a in (ADA, BOB, OWNER) if a in s): s for s in sections}
    assert set(by_account) == {ADA, BOB, OWNER} and len(sections) == 3
    for account, secret in ((ADA, "plum-7781"), (BOB, "kiwi-4410"), (OWNER, "fig-1234")):
        (link,) = re.findall(r'<a href="([^"]+)">', by_account[account])
        shown = admin.get(link)
        assert shown.status_code == 200 and secret in shown.text, link
        others = {"plum-7781", "kiwi-4410", "fig-1234"} - {secret}
        assert not any(o in shown.text for o in others)  # one account's session holds nobody else's words
    assert "owner" in by_account[OWNER] and "user" in by_account[ADA]
    ada_link = re.findall(r'<a href="([^"]+)">', by_account[ADA])[0]
    assert ada_link.startswith("/gateways/signal/")

    plain = client_for(app, "viewer", admin=False)
    seen = plain.get("/gateways").text
    assert "an admin key sees them here" in seen
    assert not any(s in seen for s in ("plum-7781", "kiwi-4410", "fig-1234", ADA, BOB))
    assert plain.get(ada_link).status_code == 403
    for secret in ("plum-7781", "kiwi-4410", "fig-1234"):
        assert "nothing found" in plain.get("/sessions", params={"q": secret}).text
    # the owner's session is in the grove's own home: an admin finds it
    assert "nothing found" not in admin.get("/sessions", params={"q": "fig-1234"}).text
    assert admin.get("/gateways/signal/../../etc/x").status_code == 404
    assert admin.get(ada_link.rsplit("/", 1)[0] + "/not-a-session").status_code == 404
