"""Framework overhead and fixed cost of one `grove run` against a fake OpenAI-compatible server that answers at once.

Prints per-run wall time, HTTP requests per answer, peak RSS, and the size of the request for "Say hello" with the
default toolsets in cl100k tokens (system prompt, tool schemas). Usage: python benchmarks/run_overhead.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tests.fakes.openai_server import FakeOpenAIServer, FakeReply  # noqa: E402

from tokens import count_tokens  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--prompt", default="Say hello")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="grove-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["GROVE_HOME"] = str(home)
    grove = [sys.executable, "-m", "grove"]
    with FakeOpenAIServer(default=FakeReply(text="Hello!")) as srv:
        cmd = [*grove, "run", args.prompt, "-m", f"openai-compat:fake-model@{srv.url}", "--json"]
        subprocess.run(cmd, env=env, capture_output=True, check=True)  # warm the OS file cache and .pyc files
        times, requests = [], []
        for _ in range(args.runs):
            before = len(srv.requests)
            start = time.perf_counter()
            out = subprocess.run(cmd, env=env, capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if out.returncode != 0:
                raise SystemExit(f"grove run failed: {out.stderr}")
            requests.append(len(srv.requests) - before)
        body = srv.requests[-1].body
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    # The provider SDK's own import is part of every one-shot run; measured alone, the same number of times.
    sdk_times, bare_times = [], []
    for _ in range(args.runs):
        sdk_times.append(_timed([sys.executable, "-c", "import openai"]))
        bare_times.append(_timed([sys.executable, "-c", "pass"]))
    sdk_s = statistics.median(sdk_times) - statistics.median(bare_times)

    messages = body["messages"]
    tools = body.get("tools", [])
    system_tokens = count_tokens(messages[0]["content"])
    tool_tokens = count_tokens(json.dumps(tools)) if tools else 0
    request_tokens = count_tokens(json.dumps({"messages": messages, "tools": tools}))
    print(
        f"runs: {args.runs}  median {statistics.median(times):.3f} s  min {min(times):.3f} s  max {max(times):.3f} s"
    )
    print(f"HTTP requests per answer: {statistics.median(requests):.0f}  peak RSS of a run: {rss_mb:.0f} MB")
    print(
        f"request for {args.prompt!r}: {request_tokens} tokens (system prompt {system_tokens}, "
        f"{len(tools)} tool schemas {tool_tokens})"
    )
    print(
        f"of which the openai SDK import: {sdk_s:.3f} s; grove without it: {statistics.median(times) - sdk_s:.3f} s"
    )
    print(
        f"overhead_s={statistics.median(times):.3f} openai_import_s={sdk_s:.3f} "
        f"grove_only_s={statistics.median(times) - sdk_s:.3f} requests={statistics.median(requests):.0f} "
        f"rss_mb={rss_mb:.0f} prompt_tokens={request_tokens} system_tokens={system_tokens} "
        f"tool_schema_tokens={tool_tokens} tools={len(tools)}"
    )


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
