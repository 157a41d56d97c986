"""The browser toolset in Debian's chromium on a local site, through a real Session and the script model: sign
in, fill and send a form, read a table, download a file; sub-resources reaching private addresses are refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "playwright.sync_api", reason="browser tests need playwright (pip install 'grove-agent[web]')"
)

from tests.fakes.web_server import FakeWeb
from tests.web.browser_driver import CHROMIUM, call, driver, ref

from grove.config import Settings
from grove.runtime import Profile, Session

if CHROMIUM is None:
    pytest.skip("browser tests need Debian's chromium (apt-get install chromium)", allow_module_level=True)


def _open(settings: Settings, workspace: Path, steps: list[Any], approver: Any = None) -> Session:
    return Session.open(
        settings,
        Profile(
            source="test",
            toolsets=["browser"],
            workspace=workspace,
            approver=approver,
            model=driver(steps),
        ),
    )


def _outputs(session: Session) -> list[str]:
    return [m["content"] for m in session.agent.messages if m["role"] == "tool"]


def test_sign_in_order_read_the_table_and_download(
    web: FakeWeb, web_settings: Settings, workspace: Path
) -> None:
    steps = [
        lambda _: call("browser_open", url=web.url("/app/home")),  # redirected to the login page
        lambda s: call("browser_type", ref=ref(s, 'textbox "Username"'), text="ada"),
        lambda s: call("browser_type", ref=ref(s, 'textbox "Password"'), text="lovelace", submit=True),
        lambda s: call("browser_type", ref=ref(s, 'textbox "Item"'), text="Kettle"),
        lambda s: call("browser_select", ref=ref(s, 'combobox "Size"'), value="Medium"),
        lambda s: call("browser_click", ref=ref(s, 'button "Place order"')),
        lambda s: call("browser_click", ref=ref(s, 'link "Orders"')),
        lambda s: call("browser_table", ref=ref(s, 'table "Orders"')),
        lambda _: call("browser_snapshot"),
        lambda s: call("browser_download", ref=ref(s, 'link "Export CSV"')),
    ]
    asked: list[Any] = []
    session = _open(web_settings, workspace, steps, lambda r: asked.append(r) or "once")
    session.run_turn("order a medium kettle and export the orders")
    session.close()
    out = _outputs(session)
    assert len(out) == len(steps), out
    assert "Page: Sign in" in out[0]
    assert "Welcome, Ada" in out[2]
    assert "Order placed: Kettle (Medium)" in out[5]
    assert "| 2 | Kettle | Medium |" in out[7]
    assert (workspace / "orders.csv").read_text() == "no,item,size\n1,Teapot,Large\n2,Kettle,Medium\n"
    # typing into a page once page content is in context is an egress act: asked each time (answered "once")
    assert [r.command.split()[0] for r in asked] == ["browser_type"] * 3 + ["browser_select"]
    assert session.agent.ctx.state["browser"].page is None, "the browser outlived its session"


def test_private_sub_resources_are_refused(web: FakeWeb, web_settings: Settings, workspace: Path) -> None:
    session = _open(web_settings, workspace, [lambda _: call("browser_open", url=web.url("/probe"))])
    session.run_turn("look")
    session.close()
    out = _outputs(session)[0]
    assert "grove refused 3 request(s)" in out and "169.254.169.254" in out and "10.0.0.1" in out
    assert not any("via=img" in r[1] for r in web.requests), "escape: localhost was reached from the page"


@pytest.mark.parametrize(
    "url", ["http://localhost:{port}/plain.txt", "http://[::1]:{port}/", "file:///etc/passwd"]
)
def test_opening_a_private_or_local_url_is_refused(
    url: str, web: FakeWeb, web_settings: Settings, workspace: Path
) -> None:
    session = _open(web_settings, workspace, [lambda _: call("browser_open", url=url.format(port=web.port))])
    session.run_turn("look")
    session.close()
    out = _outputs(session)[0]
    assert out.startswith("Error:") and ("public addresses only" in out or "only http and https" in out), out
    assert not web.requests
