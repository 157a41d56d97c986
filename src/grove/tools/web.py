"""The `web` toolset: web_search and web_fetch. What they return is untrusted (it taints the session, and is
screened for injections); with taint in context, a request to a URL no tool result showed needs approval."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from grove.errors import GroveError
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

TOOLSET = "web"
SEEN = "web_seen_urls"  # ctx.state key: URLs that tool results showed (links, search hits, redirects)
_URL = re.compile(r"https?://[^\s<>\"'()\[\]]+")


def seen_urls(ctx: ToolContext) -> set[str]:
    return ctx.state.setdefault(SEEN, set())


def remember_urls(ctx: ToolContext, text: str) -> None:
    """Every URL `text` shows, so following a link or a search hit later is not taken for a model-made URL."""
    seen_urls(ctx).update(u.rstrip(".,;:!?*_") for u in _URL.findall(text))


def approve_egress(ctx: ToolContext, tool: str, url: str) -> str | None:
    """None when `url` may be requested now, else the refusal. A URL is data sent out (a query, a path), so once
    untrusted content is in context a URL the model made up is asked attended and denied unattended, naming the
    source; a URL a tool result showed verbatim carries nothing the model added."""
    policy = ctx.policy
    if not policy.taint or url in seen_urls(ctx):
        return None
    from grove.security.approval.flow import decide_verdict
    from grove.security.approval.taint import egress_finding
    from grove.security.commands.base import CommandVerdict

    host = urlsplit(url).hostname or url
    finding = egress_finding(policy.taint, f"{tool} sends a request to {host} whose URL can carry data out")
    decision = decide_verdict(policy, CommandVerdict(f"{tool} {url}", [finding]), session_id=ctx.session_id)
    return None if decision.allowed else decision.reason


def screened(text: str, source: str) -> str:
    """Outside text as the model may see it: scanned for injected instructions, quoted under a warning if flagged."""
    from grove.security.injection.scan import quarantine, scan_text

    return quarantine(text, scan_text(text, source, "context"))


def _settings(ctx: ToolContext) -> Any:
    from grove.config.web import WebConfig
    from grove.dataclass_io import section

    return section(ctx.settings, "web", WebConfig)


def web_fetch(ctx: ToolContext, url: str, max_chars: int | None = None) -> str:
    """Read a web page (or a PDF, JSON or text file) at an http(s) URL: its main text as markdown.

    Args:
        url: the address, e.g. https://example.com/article
        max_chars: cut the text here (default: the configured web.max_chars)
    """
    from grove.web.extract import extract
    from grove.web.fetch import fetcher_for

    refusal = approve_egress(ctx, "web_fetch", url)
    if refusal:
        raise ToolError(refusal)
    cfg = _settings(ctx)
    try:
        page = fetcher_for(ctx.settings).get(url, {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
        doc = extract(page)
    except GroveError as e:  # blocked, failed, not text, or the extra not installed: the model is told why
        raise ToolError(str(e)) from e
    limit = max_chars or cfg.max_chars
    text = doc.text
    head = [f"URL: {page.url}" + (f" (redirected from {page.hops[0]})" if page.hops else "")]
    if page.status >= 400:
        head.append(f"HTTP status: {page.status}")
    if doc.title:
        head.insert(0, f"# {doc.title}")
    if len(text) > limit:
        text = text[:limit] + f"\n[… cut at {limit:,} of {len(doc.text):,} characters]"
    elif page.truncated:
        text += f"\n[… the page is larger than {cfg.max_bytes:,} bytes; read up to there]"
    out = "\n".join(head) + "\n\n" + (text or "(no readable text)")
    remember_urls(ctx, out)
    return screened(out, page.url)


def web_search(ctx: ToolContext, query: str, limit: int = 8) -> str:
    """Search the web; results as numbered title / URL / snippet entries. Read one with web_fetch.

    Args:
        query: what to look for
        limit: how many results (1-20)
    """
    from grove.web.fetch import fetcher_for
    from grove.web.search import backend_for, lines

    if not query.strip():
        raise ToolError("the query is empty")
    cfg = _settings(ctx)
    try:
        backend = backend_for(cfg)
        results = backend.search(fetcher_for(ctx.settings), query, max(1, min(limit, 20)))
    except GroveError as e:
        raise ToolError(str(e)) from e
    out = lines(results)
    remember_urls(ctx, out)
    return screened(out, f"{backend.name} search")


def tools() -> list[Tool]:
    return [
        make_tool(web_search, toolset=TOOLSET, untrusted_output=True),
        make_tool(web_fetch, toolset=TOOLSET, untrusted_output=True),
    ]
