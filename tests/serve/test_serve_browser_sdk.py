"""Issue 33's acceptance in a browser: the official openai JavaScript SDK, in Chromium, on a page from another
origin (--cors-origin), holds a streamed multi-turn conversation through chat completions and through responses;
each turn's first text reaches the page before the answer is finished (the model waits until the page has it).
The SDK is the npm package bundled for the browser (.ci/openai_js_bundle.sh), loaded from a local file."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests need playwright (pip install playwright)"
)
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
BUNDLE = Path(
    os.environ.get("GROVE_OPENAI_JS_BUNDLE")
    or Path.home() / ".cache/grove-tests/openai-js/openai.browser.mjs"
)
if CHROMIUM is None:
    pytest.skip("browser tests need Debian's chromium (apt-get install chromium)", allow_module_level=True)
if not BUNDLE.is_file():
    pytest.skip(f"no openai JS SDK bundle at {BUNDLE} (run .ci/openai_js_bundle.sh)", allow_module_level=True)

from tests.serve.conftest import make_app  # noqa: E402
from tests.serve.streamed_model import StreamedEcho  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.serve.server import start_in_thread  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


@pytest.fixture
def page_origin(tmp_path: Path) -> Iterator[str]:
    """The page and the bundle, from a static server of their own (a second origin on 127.0.0.1)."""
    shutil.copy(Path(__file__).parent / "browser_sdk" / "page.html", tmp_path / "index.html")
    shutil.copy(BUNDLE, tmp_path / "openai.browser.mjs")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def test_the_js_sdk_streams_both_apis_from_another_origin(settings: Settings, page_origin: str) -> None:
    model = StreamedEcho()
    app = make_app(settings, model=model, cors_origins=[page_origin])
    key = app.state.grove.keys.add("browser")
    running = start_in_thread(app)
    errors: list[str] = []
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_default_timeout(20_000)
            page.goto(f"{page_origin}/index.html")
            page.wait_for_function("window.ready === true")
            page.evaluate(
                "([base, key]) => { window.run(base, key).then(r => window.result = r, "
                "e => window.failure = String(e)); }",
                [running.base_url, key],
            )
            for turn in range(1, 5):  # each turn's model waits until the page has its first text
                page.wait_for_function(f"window.seen >= {turn} || window.failure !== undefined")
                assert page.evaluate("window.failure") is None, page.evaluate("window.failure")
                model.client_saw_text()
            page.wait_for_function("window.result !== undefined || window.failure !== undefined")
            result: Any = page.evaluate("window.result")
            failure = page.evaluate("window.failure")
            browser.close()
    finally:
        running.stop()
    assert failure is None and not errors, (failure, errors)
    assert [t["text"] for t in result["chat"]] == [
        "heard 1: my name is Ada",
        "heard 2: my name is Ada | what is my name?",
    ]
    assert all(t["pieces"] > 1 for t in result["chat"])
    assert [t["text"] for t in result["responses"]] == [
        "heard 1: remember 42",
        "heard 2: remember 42 | what did I say?",
    ]
    assert all(
        t["kinds"][0] == "response.created" and t["kinds"][-1] == "response.completed"
        for t in result["responses"]
    )
    assert model.waits == [True, True, True, True]
