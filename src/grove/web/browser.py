"""A session's browser: headless Chromium through Playwright, one context per session. Every request the page
makes is fetched by grove's guarded fetcher and handed back to Chromium, so the address guard (resolve once,
connect to the checked address, each redirect hop re-checked) holds for navigations and sub-resources alike."""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from grove.errors import GroveError
from grove.web.fetch import Fetcher, FetchError
from grove.web.guard import BlockedAddress

SNAPSHOT_CHARS = 12_000
# headers Chromium manages itself, or that describe the wire form httpx already undid
_DROP_REQUEST = {"host", "connection", "content-length", "accept-encoding"}
_DROP_RESPONSE = {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}


class BrowserError(GroveError):
    """A browser action that failed: no browser installed, a ref not on the page, a blocked address."""


def find_chromium(configured: str | None) -> str | None:
    """The browser to drive: the configured one, Debian's chromium, or None (then Playwright's own, if any)."""
    if configured:
        return configured
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Browser:
    """One browser context, driven from a single thread of its own (Playwright's sync API is bound to the thread
    that started it, and grove runs tool calls on a pool)."""

    def __init__(
        self,
        fetcher: Fetcher,
        downloads: Path,
        executable: str | None = None,
        cdp_url: str | None = None,
    ) -> None:
        self.fetcher = fetcher
        self.downloads = downloads
        self.executable = executable
        self.cdp_url = cdp_url
        self.blocked: list[str] = []  # what the guard refused since the last action, told to the model
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grove-browser")
        self._pw: Any = None
        self._browser: Any = None
        self._context: Any = None
        self.page: Any = None

    def run(self, fn: Any, *args: Any) -> Any:
        """Run fn(*args) on the browser's thread, starting the browser on first use."""
        return self._thread.submit(self._call, fn, *args).result()

    def _call(self, fn: Any, *args: Any) -> Any:
        if self.page is None:
            self._start()
        return fn(*args)

    def _start(self) -> None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as e:
            raise BrowserError("the browser tools need playwright: pip install 'grove-agent[web]'") from e
        self._pw = sync_playwright().start()
        try:
            if self.cdp_url:  # the user's own Chrome: a fresh context in it, never their profile's tabs
                self._browser = self._pw.chromium.connect_over_cdp(self.cdp_url)
            else:
                args = ["--headless=new"] + (["--no-sandbox"] if os.geteuid() == 0 else [])
                exe = find_chromium(self.executable)
                self._browser = self._pw.chromium.launch(executable_path=exe, args=args, headless=True)
        except Exception as e:
            self._pw.stop()
            self._pw = None
            raise BrowserError(
                f"cannot start the browser ({type(e).__name__}: {e}); set web.browser_executable"
            ) from e
        self._context = self._browser.new_context(accept_downloads=True, service_workers="block")
        self._context.route("**/*", self._route)
        self._context.route_web_socket("**/*", self._websocket)
        self.page = self._context.new_page()

    def _route(self, route: Any) -> None:
        """Every request: through the guard and grove's client, the answer handed back to Chromium."""
        request = route.request
        if not request.url.startswith(("http://", "https://")):
            route.continue_()  # data:, blob: are the page's own bytes, not a request to a host
            return
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _DROP_REQUEST}
        try:
            page = self.fetcher.once(
                request.url, headers, method=request.method, body=request.post_data_buffer
            )
        except BlockedAddress as e:
            self.blocked.append(f"{request.url}: {e}")
            route.abort("blockedbyclient")
            return
        except FetchError as e:
            self.blocked.append(f"{request.url}: {e}")
            route.abort("failed")
            return
        kept = [(k, v) for k, v in page.headers if k.lower() not in _DROP_RESPONSE]
        headers_out: dict[str, str] = {}
        for (
            k,
            v,
        ) in kept:  # Playwright takes one value per name: join repeats as HTTP allows (cookies by newline)
            sep = "\n" if k.lower() == "set-cookie" else ", "
            headers_out[k] = headers_out[k] + sep + v if k in headers_out else v
        route.fulfill(status=page.status, headers=headers_out, body=page.body)

    def _websocket(self, ws: Any) -> None:
        try:
            self.fetcher.guard.check(ws.url.replace("ws", "http", 1))
        except BlockedAddress as e:
            self.blocked.append(f"{ws.url}: {e}")
            ws.close()
            return
        ws.connect_to_server()

    def close(self) -> None:
        def stop() -> None:
            for obj in (self._context, self._browser):
                try:
                    if obj is not None:
                        obj.close()
                except Exception:  # already gone (the browser crashed or was closed by the user)
                    pass
            if self._pw is not None:
                self._pw.stop()
            self.page = self._pw = self._browser = self._context = None

        if self._pw is not None:
            self._thread.submit(stop).result()
        self._thread.shutdown(wait=True)

    close_with_session = close  # the session closes what its tools opened


def snapshot(page: Any, limit: int = SNAPSHOT_CHARS) -> str:
    """The page as the model sees it: title, URL, and the accessibility tree with a ref per element."""
    tree = page.aria_snapshot(mode="ai")
    if len(tree) > limit:
        tree = tree[:limit] + f"\n[… snapshot cut at {limit:,} characters]"
    return f"Page: {page.title()}\nURL: {page.url}\n{tree}"


def table_markdown(locator: Any) -> str:
    """A table element's cells as a markdown table (header row first)."""
    rows: list[list[str]] = locator.evaluate(
        """t => Array.from(t.rows).map(r => Array.from(r.cells).map(c => c.innerText.trim().replace(/\\s+/g, ' ')))"""
    )
    if not rows:
        return "(empty table)"
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    esc = [[c.replace("|", "\\|") for c in r] for r in rows]
    lines = ["| " + " | ".join(esc[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return "\n".join(lines)
