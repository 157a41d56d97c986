"""Web search behind one protocol: each backend speaks its service's real API (SearXNG JSON, Brave Search API,
Tavily, DuckDuckGo's keyless HTML page) through the guarded fetcher; results become compact title/url/snippet lines."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, urlencode, urlsplit

from grove.errors import GroveError
from grove.web.fetch import Fetcher, Page


class SearchError(GroveError):
    """A search that failed: no key, a backend error, a response not in the backend's format."""


@dataclass(frozen=True)
class Result:
    title: str
    url: str
    snippet: str


class Backend(Protocol):
    name: str

    def search(self, fetcher: Fetcher, query: str, limit: int) -> list[Result]: ...


def _json(page: Page, backend: str) -> Any:
    if page.status >= 400:
        raise SearchError(
            f"{backend} answered HTTP {page.status}: {page.body[:200].decode(errors='replace')}"
        )
    try:
        return json.loads(page.body)
    except ValueError as e:
        raise SearchError(f"{backend} did not answer JSON ({e}); check search_url") from e


def _key(env: str | None, default: str, backend: str) -> str:
    name = env or default
    value = os.environ.get(name, "").strip()
    if not value:
        raise SearchError(f"the {backend} backend needs an API key in ${name}")
    return value


@dataclass
class SearXNG:
    url: str
    name: str = "searxng"

    def search(self, fetcher: Fetcher, query: str, limit: int) -> list[Result]:
        endpoint = self.url.rstrip("/") + "/search?" + urlencode({"q": query, "format": "json"})
        data = _json(fetcher.get(endpoint, {"Accept": "application/json"}), self.name)
        rows = data.get("results") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            raise SearchError("searxng answered without a results list (is format=json enabled there?)")
        return [Result(r.get("title", ""), r.get("url", ""), r.get("content", "")) for r in rows[:limit]]


@dataclass
class Brave:
    url: str
    key_env: str | None = None
    name: str = "brave"

    def search(self, fetcher: Fetcher, query: str, limit: int) -> list[Result]:
        key = _key(self.key_env, "BRAVE_API_KEY", self.name)
        endpoint = self.url + "?" + urlencode({"q": query, "count": min(limit, 20)})
        page = fetcher.get(endpoint, {"Accept": "application/json", "X-Subscription-Token": key})
        data = _json(page, self.name)
        rows = ((data.get("web") or {}).get("results") if isinstance(data, dict) else None) or []
        return [Result(r.get("title", ""), r.get("url", ""), r.get("description", "")) for r in rows[:limit]]


@dataclass
class Tavily:
    url: str
    key_env: str | None = None
    name: str = "tavily"

    def search(self, fetcher: Fetcher, query: str, limit: int) -> list[Result]:
        key = _key(self.key_env, "TAVILY_API_KEY", self.name)
        body = json.dumps({"query": query, "max_results": limit, "search_depth": "basic"}).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
        data = _json(fetcher.get(self.url, headers, method="POST", body=body), self.name)
        rows = data.get("results") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            raise SearchError("tavily answered without a results list")
        return [Result(r.get("title", ""), r.get("url", ""), r.get("content", "")) for r in rows[:limit]]


@dataclass
class DuckDuckGo:
    """The keyless option: DuckDuckGo's HTML results page, parsed with lxml (no JavaScript, no key)."""

    url: str
    name: str = "duckduckgo"

    def search(self, fetcher: Fetcher, query: str, limit: int) -> list[Result]:
        import lxml.html

        page = fetcher.get(self.url + "?" + urlencode({"q": query}), {"Accept": "text/html"})
        if page.status >= 400:
            raise SearchError(f"duckduckgo answered HTTP {page.status} (rate limited? try another backend)")
        tree = lxml.html.fromstring(page.body or b"<html/>")
        out: list[Result] = []
        for node in tree.xpath('//div[contains(concat(" ", @class, " "), " result ")]'):
            links = node.xpath('.//a[contains(@class, "result__a")]')
            if not links:
                continue
            snippet = node.xpath('.//*[contains(@class, "result__snippet")]')
            href = _ddg_target(links[0].get("href", ""))
            out.append(
                Result(
                    links[0].text_content().strip(),
                    href,
                    snippet[0].text_content().strip() if snippet else "",
                )
            )
            if len(out) >= limit:
                break
        return out


def _ddg_target(href: str) -> str:
    """DuckDuckGo wraps each result as //duckduckgo.com/l/?uddg=<the URL>: the URL itself."""
    parts = urlsplit(href)
    if parts.path.startswith("/l/"):
        target = parse_qs(parts.query).get("uddg")
        if target:
            return target[0]
    return href


PUBLIC = {
    "duckduckgo": "https://html.duckduckgo.com/html/",
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "tavily": "https://api.tavily.com/search",
}


def backend_for(cfg: Any) -> Backend:
    """The backend `web.search_backend` names, at `web.search_url` or the service's public endpoint."""
    name = cfg.search_backend
    url = cfg.search_url or PUBLIC.get(name)
    if not url:
        raise SearchError(
            f"the {name} backend needs web.search_url (your instance, e.g. http://127.0.0.1:8888)"
        )
    if name == "searxng":
        return SearXNG(url)
    if name == "brave":
        return Brave(url, cfg.search_key_env)
    if name == "tavily":
        return Tavily(url, cfg.search_key_env)
    if name == "duckduckgo":
        return DuckDuckGo(url)
    raise SearchError(f"unknown search backend {name!r}; choose one of {', '.join(PUBLIC)} or searxng")


def lines(results: list[Result], snippet_chars: int = 240) -> str:
    """One compact entry per result: title, URL, a short snippet."""
    if not results:
        return "no results"
    out = []
    for i, r in enumerate(results, 1):
        snippet = " ".join(r.snippet.split())
        if len(snippet) > snippet_chars:
            snippet = snippet[:snippet_chars].rstrip() + "…"
        out.append(f"{i}. {' '.join(r.title.split())}\n   {r.url}" + (f"\n   {snippet}" if snippet else ""))
    return "\n".join(out)
