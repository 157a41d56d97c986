"""Secret redaction against the red-team corpus: recall on realistic secrets (development and held-out sets),
how often benign look-alikes are mangled, lines of real code changed, and throughput.

The corpus (tests/security/redteam/secrets*.jsonl, benign_lookalikes*.jsonl) was written and frozen before the
redaction rewrite; the held-out files were written at the same time and never tuned on; held-out 2 was
hand-written after the rewrite and never tuned on. A secret counts as redacted when its whole value (every
8+ character line of a multi-line one) is gone; the stricter "window" figure also requires that no
8-character piece of it is left. Throughput: 1 MB of mixed text (dense in secrets), 1 MB of the standard
library's code, and 1 MB pathological inputs, in CPU and wall-clock time.

Usage: python benchmarks/security_secrets.py
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "security"))

from secret_corpus import lookalikes, secrets  # noqa: E402

from grove.security.secrets.redact import redact  # noqa: E402


def _stdlib_sources(packages: tuple[str, ...]) -> list[str]:
    """Ordinary code: the standard library's own source (fixed for a Python version, unlike this working
    tree)."""
    stdlib = Path(json.__file__).resolve().parent.parent
    return [
        p.read_text(encoding="utf-8", errors="replace")
        for pkg in packages
        for p in sorted((stdlib / pkg).rglob("*.py"))
    ]


def mixed_text(size: int) -> str:
    """~size bytes of code and of the corpus texts (logs, configs, shell output, chat) with their secrets and
    look-alikes, as tool output would mix them: denser in secrets than real output."""
    rng = random.Random(7)
    pieces = [s.text for s in secrets()] + [b.text for b in lookalikes()] * 3
    pieces += _stdlib_sources(("json", "logging", "urllib", "http"))
    out: list[str] = []
    n = 0
    while n < size:
        piece = rng.choice(pieces)
        out.append(piece)
        n += len(piece) + 1
    return "\n".join(out)[:size]


def main() -> None:
    figures: dict[str, float] = {}
    for name, split in (
        ("development", "dev"),
        ("held-out (written with it, never tuned on)", "heldout"),
        ("held-out 2 (hand-written after the rewrite, never tuned on)", "heldout2"),
    ):
        heldout = split != "dev"
        items = secrets(split=split)
        outs = [redact(s.text, environ={}) for s in items]
        leaked = [s for s, out in zip(items, outs, strict=True) if s.leaked(out)]
        partial = [s for s, out in zip(items, outs, strict=True) if s.leaked_window(out)]
        recall = 1 - len(leaked) / len(items)
        print(
            f"secrets, {name}: {len(items)} items, recall {recall:.1%}, no 8-char piece left "
            f"{1 - len(partial) / len(items):.1%}"
        )
        if not heldout:  # the held-out set is reported as a figure only, so nobody tunes on its failures
            for kind, n in sorted(Counter(s.kind for s in leaked).items()):
                print(f"  leaked {kind}: {n}")
        benign = lookalikes(split=split)
        mangled = [b for b in benign if redact(b.text, environ={}) != b.text]
        fpr = len(mangled) / len(benign)
        print(f"look-alikes, {name}: {len(benign)} items, mangled {fpr:.1%}")
        if not heldout:
            for kind, n in sorted(Counter(b.kind for b in mangled).items()):
                print(f"  mangled {kind}: {n}")
        tag = {"dev": "", "heldout": "_heldout", "heldout2": "_heldout2"}[split]
        figures[f"secrets{tag}_n"] = len(items)
        figures[f"secret{tag}_recall"] = recall
        figures[f"secret{tag}_window_recall"] = 1 - len(partial) / len(items)
        figures[f"lookalikes{tag}_n"] = len(benign)
        figures[f"lookalike{tag}_fpr"] = fpr

    # Real text with no real secrets in it: lines of this repository's source and docs that redact changes.
    files = sorted((ROOT / "src").rglob("*.py")) + sorted(ROOT.glob("*.md"))
    total = changed = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        out = redact(text, environ={})
        total += text.count("\n")
        if out != text:
            changed += sum(1 for a, b in zip(text.splitlines(), out.splitlines(), strict=False) if a != b)
    print(
        f"this repository's source and docs: {changed} of {total} lines changed"
        " (examples of secrets in comments)"
    )
    figures["repo_lines_changed"] = changed
    # The standard library (no tests): real code with a handful of example secrets in its docs.
    stdlib = Path(json.__file__).resolve().parent.parent
    skip = {"test", "tests", "idlelib", "site-packages"}
    total = changed = 0
    for path in sorted(stdlib.rglob("*.py")):
        if skip & set(path.parts):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        out = redact(text, environ={})
        total += text.count("\n")
        if out != text:
            changed += sum(1 for a, b in zip(text.splitlines(), out.splitlines(), strict=False) if a != b)
    print(f"the standard library's source: {changed} of {total} lines changed")
    figures["stdlib_lines_changed"] = changed

    # Throughput. The machine is shared, so wall-clock time varies with load; CPU time of this process is the
    # steadier figure. Median of 5 runs each.
    code = "".join(_stdlib_sources(("asyncio", "email", "http", "json", "logging", "urllib", "xml")))
    inputs = {
        "mixed": mixed_text(1_000_000),  # a quarter of it secrets and look-alikes: the dense case
        "code": (code * (1_000_000 // len(code) + 1))[:1_000_000],
        # Pathological: inputs that make backtracking patterns blow up; they must stay linear too.
        "one_run": "aB3" * 333_334,
        "assignments": "password=x " * 90_910,
        "slashes": "a/" * 500_000,
        "separators": "key: " * 200_000,
    }
    redact(inputs["mixed"][:10_000], environ={})  # warm the regex cache
    for name, text in inputs.items():
        cpu, wall = [], []
        for _ in range(5):
            c, w = time.process_time(), time.perf_counter()
            redact(text, environ={})
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        cpu_ms, wall_ms = sorted(cpu)[2] * 1000, sorted(wall)[2] * 1000
        print(
            f"throughput, {name:<12} {len(text) / 1e6:.1f} MB: {cpu_ms:6.0f} ms CPU, {wall_ms:6.0f} ms wall"
        )
        if name == "mixed":
            figures["redact_1mb_cpu_ms"] = cpu_ms
            figures["redact_1mb_wall_ms"] = wall_ms
            figures["redact_mb_per_s"] = len(text) / 1e6 / (cpu_ms / 1000)
        elif name == "code":
            figures["redact_code_1mb_cpu_ms"] = cpu_ms
        else:
            figures["redact_worst_1mb_cpu_ms"] = max(figures.get("redact_worst_1mb_cpu_ms", 0.0), cpu_ms)
    print(
        " ".join(
            f"{k}={v:.0f}" if k.endswith(("_n", "_ms", "_changed")) else f"{k}={v:.3f}"
            for k, v in figures.items()
        )
    )


if __name__ == "__main__":
    main()
