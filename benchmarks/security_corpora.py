"""Security corpora: recall and false-positive rate of the command rules, redaction, injection scan and skill guard.

Corpora live in tests/security/corpora. Each has a main set (rules were tuned on it) and held-out sets written
after tuning and measured before any further change; the last held-out set of each kind was never tuned on, so
its figures are the honest estimate of how the rules generalise to phrasings nobody wrote rules for.

Usage: python benchmarks/security_corpora.py (or all security figures: python benchmarks/security.py)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "security"))

from corpora import CORPORA, jsonl, lines  # noqa: E402

from grove.security.commands.classify import classify_command  # noqa: E402
from grove.security.injection.scan import scan_text  # noqa: E402
from grove.security.secrets.redact import redact  # noqa: E402
from grove.security.skill_scan.scan import scan_skill_dir  # noqa: E402


def rate(items: list[object], hit: Callable[[object], bool]) -> tuple[float, int]:
    hits = sum(1 for i in items if hit(i))
    return (hits / len(items) if items else 0.0), len(items)


def row(
    name: str, pos: list[object], neg: list[object], flagged: Callable[[object], bool]
) -> tuple[float, float]:
    recall, n_pos = rate(pos, flagged)
    fpr, n_neg = rate(neg, flagged)
    print(f"  {name:<34} recall {recall:6.1%} ({n_pos:>3})   false positives {fpr:5.1%} ({n_neg:>3})")
    return recall, fpr


def main() -> None:
    figures: dict[str, float] = {}
    start = time.perf_counter()

    print("dangerous commands (flagged = dangerous or blocked)")
    cmd = lambda c: classify_command(str(c)).level != "safe"  # noqa: E731
    r, f = row("main", lines("commands_dangerous.txt"), lines("commands_benign.txt"), cmd)
    figures |= {"cmd_recall": r, "cmd_fpr": f}
    r, f = row("held-out", lines("commands_heldout_dangerous.txt"), lines("commands_heldout_benign.txt"), cmd)
    figures |= {"cmd_heldout_recall": r, "cmd_heldout_fpr": f}

    print("secrets (recall = secret value gone after redact; FP = a non-secret text changed)")
    leaks = lambda s: s["secret"] not in redact(s["text"], environ={})  # type: ignore[index]  # noqa: E731
    changed = lambda t: redact(t["text"], environ={}) != t["text"]  # type: ignore[index]  # noqa: E731
    for name, pos, neg in (
        ("main", "secrets.jsonl", "non_secrets.jsonl"),
        ("held-out", "secrets_heldout.jsonl", "non_secrets_heldout.jsonl"),
    ):
        recall, n_pos = rate(jsonl(pos), leaks)  # type: ignore[arg-type]
        fpr, n_neg = rate(jsonl(neg), changed)  # type: ignore[arg-type]
        print(f"  {name:<34} recall {recall:6.1%} ({n_pos:>3})   false positives {fpr:5.1%} ({n_neg:>3})")
        key = "secret" if name == "main" else "secret_heldout"
        figures |= {f"{key}_recall": recall, f"{key}_fpr": fpr}

    print("prompt injection (flagged = caution or dangerous)")
    inj = lambda t: scan_text(str(t)).flagged  # noqa: E731
    for name, pos, neg in (
        ("main", "injections.txt", "benign_instructions.txt"),
        ("held-out 1 (tuned on afterwards)", "injections_heldout.txt", "benign_instructions_heldout.txt"),
        ("held-out 2 (tuned on afterwards)", "injections_heldout2.txt", "benign_instructions_heldout2.txt"),
        ("held-out 3 (tuned on afterwards)", "injections_heldout3.txt", "benign_instructions_heldout3.txt"),
        ("held-out 4 (never tuned on)", "injections_heldout4.txt", "benign_instructions_heldout4.txt"),
    ):
        r, f = row(name, lines(pos), lines(neg), inj)
        key = "inj" if name == "main" else "inj_heldout" + name.split()[1]
        figures |= {f"{key}_recall": r, f"{key}_fpr": f}

    print("skills (flagged = blocked, i.e. verdict dangerous)")
    blocked = lambda d: scan_skill_dir(Path(str(d))).blocked  # noqa: E731
    for name, base in (("main", "skills"), ("held-out", "skills_heldout")):
        mal = sorted((CORPORA / base / "malicious").iterdir())
        ben = sorted((CORPORA / base / "benign").iterdir())
        r, f = row(name, list(mal), list(ben), blocked)
        key = "skill" if name == "main" else "skill_heldout"
        figures |= {f"{key}_blocked": r, f"{key}_benign_blocked": f}

    print(f"all corpora scanned in {time.perf_counter() - start:.2f} s")
    # Throughput on ~100 KB of ordinary prose and code (the benign corpora, repeated): what a big web page costs.
    page = "\n".join(lines("benign_instructions.txt") + lines("commands_benign.txt"))
    page = (page * (100_000 // len(page) + 1))[:100_000]
    for name, fn in (("scan_text", lambda: scan_text(page)), ("redact", lambda: redact(page, environ={}))):
        t = time.perf_counter()
        fn()
        ms = (time.perf_counter() - t) * 1000
        print(f"  {name} of 100 KB: {ms:.0f} ms")
        figures[f"{name}_100kb_ms"] = ms
    print(" ".join(f"{k}={v:.3f}" if v < 10 else f"{k}={v:.0f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
