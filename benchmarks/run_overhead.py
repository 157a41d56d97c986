"""Framework overhead and fixed cost of one `grove run` against a fake OpenAI-compatible server that answers at once.

Prints the median wall time of a run with the default transport ("auto": stdlib HTTP for one-shot runs) and with the
openai SDK, HTTP requests per answer, peak RSS, and the size of the request for "Say hello" with the default toolsets
in cl100k tokens (system prompt, tool schemas). Usage: python benchmarks/run_overhead.py [--runs 10]
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

    # Bytecode caching on, as for any pip-installed package: this sandbox sets PYTHONDONTWRITEBYTECODE=1, which
    # would make the editable install recompile its ~70 modules on every start (~50 ms more).
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith("GROVE_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    grove = [sys.executable, "-m", "grove"]
    with FakeOpenAIServer(default=FakeReply(text="Hello!")) as srv:
        cmd = [*grove, "run", args.prompt, "-m", f"openai-compat:fake-model@{srv.url}", "--json"]
        # The default ("auto": the stdlib transport for a one-shot run), and the same run through the openai SDK.
        variants = {
            "auto": {**env, "GROVE_HOME": str(_home(None))},
            "sdk": {**env, "GROVE_HOME": str(_home("sdk"))},
        }
        times: dict[str, list[float]] = {name: [] for name in variants}
        requests = []
        for variant_env in variants.values():
            subprocess.run(cmd, env=variant_env, capture_output=True, check=True)  # warm files, .pyc, caches
        for _ in range(args.runs):
            for name, variant_env in variants.items():  # interleaved, so a noisy moment hits all alike
                before = len(srv.requests)
                start = time.perf_counter()
                out = subprocess.run(cmd, env=variant_env, capture_output=True, text=True)
                times[name].append(time.perf_counter() - start)
                if out.returncode != 0:
                    raise SystemExit(f"grove run failed: {out.stderr}")
                if name == "auto":
                    requests.append(len(srv.requests) - before)
        body = srv.requests[-1].body
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    bare = statistics.median(_timed([sys.executable, "-c", "pass"]) for _ in range(args.runs))

    messages = body["messages"]
    tools = body.get("tools", [])
    system_tokens = count_tokens(messages[0]["content"])
    tool_tokens = count_tokens(json.dumps(tools)) if tools else 0
    request_tokens = count_tokens(json.dumps({"messages": messages, "tools": tools}))
    auto, sdk = (statistics.median(times[n]) for n in variants)
    print(
        f"{'variant':<10} {'median':>8} {'min':>8} {'max':>8}   ({args.runs} runs each, instant fake server)"
    )
    for name, t in times.items():
        print(f"{name:<10} {statistics.median(t):7.3f}s {min(t):7.3f}s {max(t):7.3f}s")
    print(f"bare interpreter (python -c pass): {bare:.3f} s")
    print(f"HTTP requests per answer: {statistics.median(requests):.0f}  peak RSS of a run: {rss_mb:.0f} MB")
    print(
        f"request for {args.prompt!r}: {request_tokens} tokens (system prompt {system_tokens}, "
        f"{len(tools)} tool schemas {tool_tokens})"
    )
    print(
        f"overhead_s={auto:.3f} sdk_overhead_s={sdk:.3f} python_s={bare:.3f} "
        f"requests={statistics.median(requests):.0f} rss_mb={rss_mb:.0f} prompt_tokens={request_tokens} "
        f"system_tokens={system_tokens} tool_schema_tokens={tool_tokens} tools={len(tools)}"
    )


def _home(transport: str | None) -> Path:
    home = Path(tempfile.mkdtemp(prefix="grove-bench-"))
    if transport:
        (home / "config.yaml").write_text(f"providers:\n  openai-compat:\n    transport: {transport}\n")
    return home


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
