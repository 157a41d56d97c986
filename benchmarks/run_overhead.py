"""Framework overhead and fixed cost of one `grove run` against fake servers that answer at once.

Prints the median wall time of a run with the default transport ("auto": stdlib HTTP for one-shot runs) and through
the provider's SDK, for an OpenAI-compatible server and for Anthropic's API; HTTP requests per answer, peak RSS, and
the size of the request for "Say hello" with the default toolsets in cl100k tokens (system prompt, tool schemas).
With `--against REV` (or `--baseline REV`) it also times the default variant of grove as it was at git revision REV,
interleaved with today's, so a before/after comparison sees the same machine load (`baseline_overhead_s`). The
one-shot start-up (`grove run -m script:<file> hi`: no server, no skill written) is timed the same way (`startup_s`,
`baseline_startup_s`), with the number of grove.security modules it imports (`security_modules`).
Usage: python benchmarks/run_overhead.py [--runs 10] [--baseline REV]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tests.fakes.anthropic_server import FakeAnthropicServer  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply  # noqa: E402

from tokens import count_tokens  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--prompt", default="Say hello")
    parser.add_argument(
        "--against", "--baseline", metavar="REV", help="also time grove's source at this git revision"
    )
    args = parser.parse_args()

    # Bytecode caching on, as for any pip-installed package: this sandbox sets PYTHONDONTWRITEBYTECODE=1, which
    # would make the editable install recompile its ~70 modules on every start (~50 ms more).
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith("GROVE_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    grove = [sys.executable, "-m", "grove", "run", args.prompt, "--json"]
    fake = FakeReply(text="Hello!")
    with FakeOpenAIServer(default=fake) as srv, FakeAnthropicServer(default=fake) as claude:
        openai_cmd = [*grove, "-m", f"openai-compat:fake-model@{srv.url}"]
        claude_cmd = [*grove, "-m", "anthropic:fake-model"]
        # The default transport ("auto": stdlib HTTP for a one-shot run), and the same run through the provider's
        # SDK; for an OpenAI-compatible server (the figure) and for Anthropic's API.
        variants = {
            "openai": (openai_cmd, _home("openai-compat", None)),
            "openai-sdk": (openai_cmd, _home("openai-compat", "sdk")),
            "anthropic": (claude_cmd, _home("anthropic", None, claude.url)),
            "anthropic-sdk": (claude_cmd, _home("anthropic", "sdk", claude.url)),
        }
        if args.against:  # the same run on the old source, first on sys.path
            old = _source_at(args.against)
            variants[f"openai@{args.against}"] = (
                ["env", f"PYTHONPATH={old}", *openai_cmd],
                _home("openai-compat", None),
            )
        times: dict[str, list[float]] = {name: [] for name in variants}
        requests = []
        for cmd, home in variants.values():  # warm files, .pyc, caches
            subprocess.run(cmd, env={**env, "GROVE_HOME": str(home)}, capture_output=True, check=True)
        for _ in range(args.runs):
            for name, (cmd, home) in variants.items():  # interleaved, so a noisy moment hits all alike
                before = len(srv.requests)
                start = time.perf_counter()
                out = subprocess.run(
                    cmd, env={**env, "GROVE_HOME": str(home)}, capture_output=True, text=True
                )
                times[name].append(time.perf_counter() - start)
                if out.returncode != 0:
                    raise SystemExit(f"grove run failed: {out.stderr}")
                if name == "openai":
                    requests.append(len(srv.requests) - before)
                    body = srv.requests[-1].body  # today's request (the baseline's goes to the same server)
        rss = {
            name: _peak_rss_mb(cmd, {**env, "GROVE_HOME": str(home)})
            for name, (cmd, home) in variants.items()
        }
    rss_mb = rss["openai"]
    startup, security_modules = _startup(env, args.runs, _source_at(args.against) if args.against else None)
    bare = statistics.median(_timed([sys.executable, "-c", "pass"]) for _ in range(args.runs))

    messages = body["messages"]
    tools = body.get("tools", [])
    system_tokens = count_tokens(messages[0]["content"])
    tool_tokens = count_tokens(json.dumps(tools)) if tools else 0
    request_tokens = count_tokens(json.dumps({"messages": messages, "tools": tools}))
    median = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"{'variant':<14} {'median':>8} {'min':>8} {'max':>8}   ({args.runs} runs each, instant fake server)"
    )
    for name, t in times.items():
        print(
            f"{name:<14} {statistics.median(t):7.3f}s {min(t):7.3f}s {max(t):7.3f}s  peak RSS {rss[name]:.0f} MB"
        )
    print(f"bare interpreter (python -c pass): {bare:.3f} s")
    print(f"HTTP requests per answer: {statistics.median(requests):.0f}")
    print(
        f"request for {args.prompt!r}: {request_tokens} tokens (system prompt {system_tokens}, "
        f"{len(tools)} tool schemas {tool_tokens})"
    )
    for name, t in startup.items():
        print(f"one-shot start-up {name:<18} median {statistics.median(t):.3f}s min {min(t):.3f}s")
    print(f"grove.security modules imported by a one-shot run: {security_modules}")
    baseline = f" baseline_overhead_s={median[f'openai@{args.against}']:.3f}" if args.against else ""
    baseline += f" baseline_startup_s={statistics.median(startup['baseline']):.3f}" if args.against else ""
    print(
        f"overhead_s={median['openai']:.3f} startup_s={statistics.median(startup['now']):.3f}{baseline} "
        f"security_modules={security_modules} sdk_overhead_s={median['openai-sdk']:.3f} "
        f"anthropic_overhead_s={median['anthropic']:.3f} anthropic_sdk_overhead_s={median['anthropic-sdk']:.3f} "
        f"python_s={bare:.3f} "
        f"requests={statistics.median(requests):.0f} rss_mb={rss_mb:.0f} prompt_tokens={request_tokens} "
        f"system_tokens={system_tokens} tool_schema_tokens={tool_tokens} tools={len(tools)}"
    )


_PROBE = (
    "import runpy, sys; sys.argv = ['grove', 'run', '-m', 'script:' + sys.argv[1], 'hi']\n"
    "try:\n    runpy.run_module('grove', run_name='__main__')\nexcept SystemExit:\n    pass\n"
    "print(sum(m.startswith('grove.security.') for m in sys.modules), file=sys.stderr)"
)


def _startup(env: dict[str, str], runs: int, old: Path | None) -> tuple[dict[str, list[float]], int]:
    """Wall times of a one-shot scripted `grove run` (now, and at the baseline source `old`), interleaved; and
    how many grove.security modules today's run imports."""
    work = Path(tempfile.mkdtemp(prefix="grove-startup-"))
    script = work / "reply.yaml"
    script.write_text("- text: Hello there.\n")
    cmd = [sys.executable, "-m", "grove", "run", "-m", f"script:{script}", "hi"]
    variants = {"now": {**env, "GROVE_HOME": str(work / "now")}}
    if old is not None:
        variants["baseline"] = {**env, "GROVE_HOME": str(work / "old"), "PYTHONPATH": str(old)}
    for e in variants.values():  # warm files and .pyc
        subprocess.run(cmd, env=e, capture_output=True, check=True)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, e in variants.items():
            start = time.perf_counter()
            subprocess.run(cmd, env=e, capture_output=True, check=True)
            times[name].append(time.perf_counter() - start)
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE, str(script)],
        env=variants["now"],
        capture_output=True,
        text=True,
        check=True,
    )
    return times, int(probe.stderr.strip().splitlines()[-1])


def _source_at(rev: str) -> Path:
    """grove's src/ at git revision `rev`, unpacked in a temporary folder."""
    out = Path(tempfile.mkdtemp(prefix="grove-src-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)
    return out / "src"


def _home(provider: str, transport: str | None, base_url: str | None = None) -> Path:
    home = Path(tempfile.mkdtemp(prefix="grove-bench-"))
    settings = {k: v for k, v in (("transport", transport), ("base_url", base_url)) if v}
    if settings:
        lines = "".join(f"    {k}: {v}\n" for k, v in settings.items())
        (home / "config.yaml").write_text(f"providers:\n  {provider}:\n{lines}")
    return home


def _peak_rss_mb(cmd: list[str], env: dict[str, str]) -> float:
    """The peak resident memory of one run of `cmd` alone."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
