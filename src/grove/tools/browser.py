"""The `browser` toolset: drive a headless Chromium by accessibility snapshot and element refs. Pages are untrusted
output; with taint in context, opening a URL no result showed, or typing into a page, needs approval."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any, Literal

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool
from grove.tools.web import approve_egress, remember_urls, screened

TOOLSET = "browser"
STATE = "browser"
_REF = re.compile(r"^(f\d+)?e\d+$")  # e12, or f1e12 once the page has navigated


def _browser(ctx: ToolContext) -> Any:
    """The session's browser, started on first use (one context per session, closed with it)."""
    browser = ctx.state.get(STATE)
    if browser is None:
        from grove.config.web import WebConfig
        from grove.dataclass_io import section
        from grove.web.browser import Browser
        from grove.web.fetch import fetcher_for

        cfg = section(ctx.settings, "web", WebConfig)
        browser = Browser(
            fetcher_for(ctx.settings), ctx.workspace, cfg.browser_executable, cfg.browser_cdp_url
        )
        ctx.state[STATE] = browser
    return browser


def _act(ctx: ToolContext, action: Any, *, show: bool = True) -> str:
    """Run an action on the browser's thread; then the page's snapshot (screened, its links remembered)."""
    from grove.web.browser import BrowserError, snapshot

    browser = _browser(ctx)
    browser.blocked.clear()

    def step() -> str:
        note = action(browser.page) or ""
        if not show:
            return note
        with contextlib.suppress(Exception):  # a page still loading is shown as it is
            browser.page.wait_for_load_state("load", timeout=5000)
        return (note + "\n" if note else "") + snapshot(browser.page)

    try:
        out = browser.run(step)
    except BrowserError as e:
        raise ToolError(str(e)) from e
    except Exception as e:  # Playwright's errors name the ref or the timeout: the model can adapt
        blocked = "; ".join(browser.blocked[:3])
        raise ToolError(
            f"{type(e).__name__}: {str(e).splitlines()[0]}" + (f" (blocked: {blocked})" if blocked else "")
        ) from e
    if browser.blocked:
        out = f"[grove refused {len(browser.blocked)} request(s): {'; '.join(browser.blocked[:3])}]\n" + out
    remember_urls(ctx, out)
    return screened(out, f"browser page {browser.page.url if browser.page else ''}")


def _locator(page: Any, ref: str) -> Any:
    if not _REF.match(ref):
        raise ToolError(f"{ref!r} is not a ref; use one like e12 from the latest snapshot")
    return page.locator(f"aria-ref={ref}")


def approve_typing(ctx: ToolContext, tool: str, page_url: str) -> str | None:
    """Typed text leaves with the page's next request, so with taint in context typing is an egress act."""
    policy = ctx.policy
    if not policy.taint:
        return None
    from urllib.parse import urlsplit

    from grove.security.approval.flow import decide_verdict
    from grove.security.approval.taint import egress_finding
    from grove.security.commands.base import CommandVerdict

    host = urlsplit(page_url).hostname or page_url
    finding = egress_finding(policy.taint, f"{tool} enters text into a page of {host}, which can send it out")
    decision = decide_verdict(
        policy, CommandVerdict(f"{tool} on {page_url}", [finding]), session_id=ctx.session_id
    )
    return None if decision.allowed else decision.reason


def browser_open(ctx: ToolContext, url: str) -> str:
    """Open a URL in the browser; returns the page's accessibility snapshot, each element with a ref (e12).

    Args:
        url: an http(s) address
    """
    from grove.web.guard import BlockedAddress

    refusal = approve_egress(ctx, "browser_open", url)
    if refusal:
        raise ToolError(refusal)
    try:  # refused here with its reason, not as a bare net::ERR_BLOCKED_BY_CLIENT from Chromium
        _browser(ctx).fetcher.guard.check(url)
    except BlockedAddress as e:
        raise ToolError(str(e)) from e
    return _act(ctx, lambda page: page.goto(url, wait_until="load", timeout=20_000) and None)


def browser_snapshot(ctx: ToolContext) -> str:
    """The current page's accessibility snapshot again (after the page changed on its own)."""
    return _act(ctx, lambda page: None)


def browser_click(ctx: ToolContext, ref: str) -> str:
    """Click an element by its ref from the latest snapshot; returns the new snapshot.

    Args:
        ref: the element's ref, e.g. e12
    """
    return _act(ctx, lambda page: _locator(page, ref).click(timeout=5000))


def browser_type(ctx: ToolContext, ref: str, text: str, submit: bool = False) -> str:
    """Fill a text field by its ref (replacing what it holds); submit presses Enter after.

    Args:
        ref: the field's ref, e.g. e5
        text: what to enter
        submit: press Enter afterwards
    """
    browser = _browser(ctx)
    refusal = approve_typing(ctx, "browser_type", browser.page.url if browser.page else "")
    if refusal:
        raise ToolError(refusal)

    def fill(page: Any) -> None:
        field = _locator(page, ref)
        field.fill(text, timeout=5000)
        if submit:
            field.press("Enter")

    return _act(ctx, fill)


def browser_select(ctx: ToolContext, ref: str, value: str) -> str:
    """Choose an option of a select box by its label or value.

    Args:
        ref: the select box's ref
        value: the option's label or value
    """
    browser = _browser(ctx)
    refusal = approve_typing(ctx, "browser_select", browser.page.url if browser.page else "")
    if refusal:
        raise ToolError(refusal)

    def choose(page: Any) -> None:
        box = _locator(page, ref)
        try:
            box.select_option(label=value, timeout=5000)
        except Exception:
            box.select_option(value=value, timeout=5000)

    return _act(ctx, choose)


def browser_back(ctx: ToolContext) -> str:
    """Go back one page in the browser's history."""
    return _act(ctx, lambda page: page.go_back(timeout=10_000) and None)


def browser_scroll(ctx: ToolContext, direction: Literal["down", "up"] = "down") -> str:
    """Scroll the page by a screenful (pages that load more content as you scroll).

    Args:
        direction: down or up
    """
    return _act(ctx, lambda page: page.mouse.wheel(0, 800 if direction == "down" else -800))


def browser_wait(ctx: ToolContext, text: str, seconds: float = 10.0) -> str:
    """Wait until a text appears on the page (content loaded by script), then snapshot.

    Args:
        text: the text to wait for
        seconds: how long at most (1-60)
    """
    ms = int(max(1.0, min(seconds, 60.0)) * 1000)
    return _act(ctx, lambda page: page.get_by_text(text).first.wait_for(timeout=ms))


def browser_table(ctx: ToolContext, ref: str) -> str:
    """Read a table (its ref from the snapshot) as a markdown table.

    Args:
        ref: the table's ref
    """
    from grove.web.browser import table_markdown

    return _act(ctx, lambda page: table_markdown(_locator(page, ref)), show=False)


def browser_download(ctx: ToolContext, ref: str, save_as: str | None = None) -> str:
    """Click a link or button that downloads a file, and save the file into the workspace.

    Args:
        ref: the ref of the link or button
        save_as: file name in the workspace (default: the name the site gives)
    """

    def download(page: Any) -> str:
        with page.expect_download(timeout=15_000) as info:
            _locator(page, ref).click(timeout=5000)
        d = info.value
        name = Path(save_as or d.suggested_filename or "download").name  # a name only: never a path out
        if name in ("", ".", ".."):
            name = "download"
        target = ctx.workspace / name
        d.save_as(str(target))
        return f"saved {name} ({target.stat().st_size:,} bytes) from {d.url}"

    return _act(ctx, download, show=False)


def browser_screenshot(ctx: ToolContext, path: str = "screenshot.png") -> str:
    """Save a screenshot of the page as a PNG in the workspace.

    Args:
        path: file name in the workspace
    """
    target = ctx.workspace / Path(path).name

    def shoot(page: Any) -> str:
        page.screenshot(path=str(target))
        return f"saved {target.name} ({target.stat().st_size:,} bytes)"

    return _act(ctx, shoot, show=False)


def tools() -> list[Tool]:
    readers = [browser_snapshot, browser_table]
    actors = [
        browser_open,
        browser_click,
        browser_type,
        browser_select,
        browser_back,
        browser_scroll,
        browser_wait,
        browser_download,
        browser_screenshot,
    ]
    # one page: its actions run one at a time, in order (mutating = never batched with others)
    return [make_tool(f, toolset=TOOLSET, untrusted_output=True) for f in readers] + [
        make_tool(f, toolset=TOOLSET, mutating=True, untrusted_output=True) for f in actors
    ]
