"""web_fetch on a local web: articles come back as markdown (far smaller than their HTML), PDF, JSON and text
are read, binary is refused, huge and slow bodies stop at their caps, redirects are followed within a limit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.fakes.web_server import FIXTURES, FakeWeb, fake_resolver

from grove.config import Settings
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError
from grove.tools.web import web_fetch
from grove.web.fetch import Fetcher
from grove.web.guard import Guard

ARTICLES = sorted(
    p.name.removeprefix("article-").removesuffix(".html") for p in FIXTURES.glob("article-*.html")
)


def _ctx(settings: Settings, tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path, settings=settings)


@pytest.mark.parametrize("name", ARTICLES)
def test_article_is_markdown_ten_times_smaller(
    name: str, web: FakeWeb, web_settings: Settings, tmp_path: Path
) -> None:
    out = web_fetch(_ctx(web_settings, tmp_path), web.url(f"/article/{name}"))
    html = (FIXTURES / f"article-{name}.html").read_text()
    assert out.startswith("# ") and "URL: " in out
    assert "<" not in out.split("\n\n", 1)[1][:2000], "markup leaked into the text"
    assert "googletag" not in out and "Accept all" not in out, "page chrome leaked into the text"
    first_para = html.split('<p class="article__para c0">')[1].split("</p>")[0]
    assert first_para[:80] in out
    assert len(html) >= 10 * len(out), f"{len(html)} chars of HTML became {len(out)}"


def test_pdf_json_and_text_are_read(web: FakeWeb, web_settings: Settings, tmp_path: Path) -> None:
    ctx = _ctx(web_settings, tmp_path)
    assert "Quarterly revenue grew by 12 percent" in web_fetch(ctx, web.url("/report.pdf"))
    assert '"stars": 42' in web_fetch(ctx, web.url("/data.json"))
    assert "just some text" in web_fetch(ctx, web.url("/plain.txt"))


def test_binary_is_refused_with_what_it_is(web: FakeWeb, web_settings: Settings, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"image/png .* not text"):
        web_fetch(_ctx(web_settings, tmp_path), web.url("/image.png"))


def test_huge_page_stops_at_the_byte_cap(web: FakeWeb, web_settings: Settings, tmp_path: Path) -> None:
    web_settings.web.max_bytes = 100_000
    out = web_fetch(_ctx(web_settings, tmp_path), web.url("/huge"), max_chars=50_000)
    assert "cut at 50,000" in out or "larger than 100,000 bytes" in out
    assert len(out) < 60_000


def test_slow_page_stops_at_the_deadline(web: FakeWeb, web_settings: Settings, tmp_path: Path) -> None:
    web_settings.web.timeout = 1.0  # the page trickles a byte per 0.2 s for a minute: no read ever times out
    with pytest.raises(ToolError, match="timed out after 1 s"):
        web_fetch(_ctx(web_settings, tmp_path), web.url("/slow"))


def test_redirects_are_followed_and_capped(web: FakeWeb, web_settings: Settings, tmp_path: Path) -> None:
    ctx = _ctx(web_settings, tmp_path)
    out = web_fetch(ctx, web.url("/redirect?to=/article/night-trains"))
    assert "night train" in out and "redirected from" in out
    with pytest.raises(ToolError, match="more than 5 redirects"):
        web_fetch(ctx, web.url("/loop"))


def test_connects_to_the_checked_address_without_a_second_lookup(web: FakeWeb) -> None:
    """rebind.test is known only to the guard's resolver: the fetch works only if the client connects to the address
    the guard checked (real DNS cannot resolve it), and the guard asks once per hop."""
    resolver = fake_resolver({"rebind.test": ["127.0.0.1"]})
    page = Fetcher(Guard(["rebind.test"], resolver)).get(f"http://rebind.test:{web.port}/plain.txt")
    assert page.body == b"just some text\n"
    assert resolver.calls == ["rebind.test"]
    assert web.requests[-1][2]["Host"] == f"rebind.test:{web.port}"


def test_a_fetch_shares_no_cookies(web: FakeWeb) -> None:
    fetcher = Fetcher(Guard(["127.0.0.1"]))
    fetcher.get(web.url("/plain.txt"))
    fetcher.get(web.url("/plain.txt"))
    assert all("Cookie" not in r[2] for r in web.requests)


def test_without_the_extra_the_error_says_what_to_install(
    web: FakeWeb, web_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # as on a base install
    with pytest.raises(ToolError, match=r"pip install 'grove-agent\[web\]'"):
        web_fetch(_ctx(web_settings, tmp_path), web.url("/article/night-trains"))


def test_web_toolsets_are_opt_in(settings: Settings, workspace: Path) -> None:
    from grove.llm.script import ScriptModel
    from grove.runtime import Profile, Session

    session = Session.open(settings, Profile(source="test", workspace=workspace, model=ScriptModel(["ok"])))
    names = session.agent.tools.names()
    session.close()
    assert not [n for n in names if n.startswith(("web_", "browser_"))], names
