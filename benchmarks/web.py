"""What the web toolsets cost: tokens a page takes as web_fetch's markdown vs its HTML (article fixtures, local
server), browser snapshot tokens per page, seconds per browser action (Debian's chromium), the prompt tokens
the web and browser tool schemas add once enabled, and model calls for a 20-file task with and without a tool
script. Tokens: cl100k_base, offline (benchmarks/tokens.py).

    python benchmarks/web.py
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.fakes: the local web the tests use

from tests.fakes.web_server import FIXTURES, FakeWeb

from grove.config import Settings
from grove.config.web import WebConfig
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext
from grove.tools.web import web_fetch

ROUNDS = 5  # browser action timings: the median of this many runs of the whole task


def counter() -> tuple[str, Any]:
    from benchmarks.tokens import count_tokens

    return "cl100k_base (offline tiktoken)", count_tokens


def ref(snapshot: str, element: str) -> str:
    m = re.search(re.escape(element) + r" \[ref=((?:f\d+)?e\d+)\]", snapshot)
    if not m:
        raise SystemExit(f"benchmark page changed: no {element} in\n{snapshot}")
    return m.group(1)


def browser_task(ctx: ToolContext, web: FakeWeb, count: Any) -> tuple[dict[str, float], dict[str, int]]:
    """The tests' task (sign in, order, read the table, download), timed per action; snapshot tokens per page."""
    from grove.tools import browser as b

    seconds: dict[str, float] = {}
    tokens: dict[str, int] = {}

    def timed(name: str, fn: Any, *args: Any, **kw: Any) -> str:
        started = time.perf_counter()
        out = fn(ctx, *args, **kw)
        seconds[name] = time.perf_counter() - started
        return str(out)

    out = timed("start+open", b.browser_open, web.url("/app/login"))
    tokens["login"] = count(out)
    out = timed("type", b.browser_type, ref(out, 'textbox "Username"'), "ada")
    out = timed("type+submit", b.browser_type, ref(out, 'textbox "Password"'), "lovelace", submit=True)
    tokens["home (form)"] = count(out)
    out = b.browser_type(ctx, ref(out, 'textbox "Item"'), "Kettle")
    out = timed("select", b.browser_select, ref(out, 'combobox "Size"'), "Medium")
    out = timed("click (submit)", b.browser_click, ref(out, 'button "Place order"'))
    out = timed("click (link)", b.browser_click, ref(out, 'link "Orders"'))
    tokens["orders (table)"] = count(out)
    timed("table", b.browser_table, ref(out, 'table "Orders"'))
    timed("download", b.browser_download, ref(out, 'link "Export CSV"'))
    out = timed("open (article)", b.browser_open, web.url("/article/night-trains"))
    tokens["article"] = count(out)
    return seconds, tokens


TWENTY_FILES = """
total = 0
for i in range(20):
    text = tools.read_file(path=f"notes/n{i:02d}.txt")
    total += sum(int(w) for w in text.split() if w.isdigit())
tools.write_file(path="total.txt", content=f"{total}\\n")
print(total)
"""


def twenty_files(tmp: Path) -> dict[str, int]:
    """Model calls for one task (read 20 files, write their total): one call per tool call (as small models
    work), all reads in one parallel batch, and one tool script. Each run checks the answer it wrote."""
    from grove.llm.script import ScriptModel
    from grove.runtime import Profile, Session

    reads = [{"name": "read_file", "arguments": {"path": f"notes/n{i:02d}.txt"}} for i in range(20)]
    write = {"name": "write_file", "arguments": {"path": "total.txt", "content": "760\n"}}
    plans = {
        "sequential": [{"tool_calls": [r]} for r in reads] + [{"tool_calls": [write]}, "done"],
        "parallel": [{"tool_calls": reads}, {"tool_calls": [write]}, "done"],
        "tool_script": [
            {"tool_calls": [{"name": "run_tool_script", "arguments": {"code": TWENTY_FILES}}]},
            "done",
        ],
    }
    out: dict[str, int] = {}
    for label, steps in plans.items():
        ws = tmp / f"ws-{label}"
        (ws / "notes").mkdir(parents=True)
        for i in range(20):
            (ws / "notes" / f"n{i:02d}.txt").write_text(f"day {i} sold {i * 3} cups\n")
        model = ScriptModel(steps)
        session = Session.open(
            Settings(),
            Profile(
                source="bench",
                toolsets=["files", "scripts"],
                workspace=ws,
                allow_terminal=True,
                allow_unisolated=True,
                model=model,
            ),
        )
        session.run_turn("add up the cups sold in notes/ into total.txt")
        session.close()
        if (ws / "total.txt").read_text() != "760\n":
            raise SystemExit(f"{label}: wrong total.txt")
        out[label] = model.calls
    return out


def main() -> None:
    name, count = counter()
    with tempfile.TemporaryDirectory() as tmp, FakeWeb() as web:
        os.environ["GROVE_HOME"] = str(Path(tmp) / "home")
        settings = Settings(web=WebConfig(allow_hosts=["127.0.0.1"], max_chars=200_000))
        ctx = ToolContext(workspace=Path(tmp), settings=settings)

        print(f"page tokens ({name}): HTML vs web_fetch markdown")
        print(f"{'page':28}{'html':>9}{'markdown':>10}{'ratio':>8}")
        ratios = []
        for page in sorted(FIXTURES.glob("article-*.html")):
            slug = page.stem.removeprefix("article-")
            md = web_fetch(ctx, web.url(f"/article/{slug}"))
            html_t, md_t = count(page.read_text()), count(md)
            ratios.append(html_t / md_t)
            print(f"{slug:28}{html_t:>9}{md_t:>10}{html_t / md_t:>7.1f}x")

        schemas = {
            ts: count(json.dumps(builtin_registry().select([ts]).schemas())) for ts in ("web", "browser")
        }
        print(f"tool schemas once enabled: web {schemas['web']} tokens, browser {schemas['browser']} tokens")

        chromium = shutil.which("chromium")
        figures = {
            "min_ratio": f"{min(ratios):.1f}",
            "mean_ratio": f"{statistics.mean(ratios):.1f}",
            "web_schema_tokens": schemas["web"],
            "browser_schema_tokens": schemas["browser"],
        }
        try:
            import playwright  # noqa: F401
        except ImportError:
            chromium = None
        if chromium is None:
            print("browser: skipped (needs playwright and Debian's chromium)")
        else:
            runs: list[dict[str, float]] = []
            tokens: dict[str, int] = {}
            first = 0.0
            for i in range(ROUNDS):
                task_ctx = ToolContext(workspace=Path(tmp), settings=settings)
                seconds, tokens = browser_task(task_ctx, web, count)
                if i == 0:
                    first = seconds["start+open"]  # chromium cold
                runs.append(seconds)
                task_ctx.state["browser"].close()
            print(f"browser snapshot tokens per page ({name})")
            for page, n in tokens.items():
                print(f"  {page:24}{n:>7}")
            print(
                f"seconds per browser action (median of runs 2-{ROUNDS}; each run starts chromium; first run {first:.2f}s)"
            )
            medians = {k: statistics.median(r[k] for r in runs[1:] or runs) for k in runs[0]}
            for action, s in medians.items():
                print(f"  {action:24}{s:>7.3f}")
            figures |= {
                "snapshot_tokens_mean": round(statistics.mean(tokens.values())),
                "snapshot_tokens_max": max(tokens.values()),
                "action_s_median": f"{statistics.median(v for k, v in medians.items() if k != 'start+open'):.3f}",
                "start_open_s": f"{medians['start+open']:.2f}",
                "cold_start_open_s": f"{first:.2f}",
            }
        calls = twenty_files(Path(tmp))
        print("model calls for a 20-file task (read each, write the total)")
        for label, n in calls.items():
            print(f"  {label:24}{n:>7}")
        figures |= {
            "calls_sequential": calls["sequential"],
            "calls_parallel": calls["parallel"],
            "calls_tool_script": calls["tool_script"],
            "script_fewer_x": f"{calls['sequential'] / calls['tool_script']:.1f}",
        }
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
