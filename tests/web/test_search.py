"""web_search against local fakes of each backend's real API (SearXNG JSON, Brave, Tavily, DuckDuckGo HTML):
compact numbered results, keys only from the environment, a missing key a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fakes.web_server import SEARCH_HITS, FakeWeb

from grove.config import Settings
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError
from grove.tools.web import SEEN, web_search

BACKENDS = {
    "searxng": ("/searxng", None),
    "brave": ("/brave/res/v1/web/search", ("BRAVE_API_KEY", "brave-test-key")),
    "tavily": ("/tavily/search", ("TAVILY_API_KEY", "tvly-test-key")),
    "duckduckgo": ("/ddg/html/", None),
}


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_each_backend_speaks_its_api(
    backend: str, web: FakeWeb, web_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, key = BACKENDS[backend]
    if key:
        monkeypatch.setenv(*key)
    web_settings.web.search_backend = backend  # type: ignore[assignment]
    web_settings.web.search_url = web.url(path)
    ctx = ToolContext(workspace=tmp_path, settings=web_settings)
    out = web_search(ctx, "night trains", limit=2)
    title, url, snippet = SEARCH_HITS[0]
    assert out.splitlines()[:3] == [f"1. {title}", f"   {url}", f"   {snippet}"]
    assert "2. " in out and "3. " not in out
    assert url in ctx.state[SEEN], "a search hit should be readable without approval later"
    _method, sent, _headers, body = web.requests[-1]
    assert "night" in (sent + body.decode())


@pytest.mark.parametrize("backend", ["brave", "tavily"])
def test_a_missing_key_is_a_clear_error(
    backend: str, web: FakeWeb, web_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    web_settings.web.search_backend = backend  # type: ignore[assignment]
    web_settings.web.search_url = web.url(BACKENDS[backend][0])
    with pytest.raises(ToolError, match=r"needs an API key in \$"):
        web_search(ToolContext(workspace=tmp_path, settings=web_settings), "x")
    assert not web.requests


def test_a_wrong_key_is_reported(
    web: FakeWeb, web_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "wrong")
    web_settings.web.search_backend = "brave"
    web_settings.web.search_url = web.url(BACKENDS["brave"][0])
    with pytest.raises(ToolError, match="HTTP 401"):
        web_search(ToolContext(workspace=tmp_path, settings=web_settings), "x")


def test_searxng_needs_a_url(web_settings: Settings, tmp_path: Path) -> None:
    web_settings.web.search_backend = "searxng"
    with pytest.raises(ToolError, match=r"needs web\.search_url"):
        web_search(ToolContext(workspace=tmp_path, settings=web_settings), "x")
