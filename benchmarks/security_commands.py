"""Command approval by meaning: recall on obfuscated dangerous commands and false positives on everyday ones,
measured through the policy itself (what is actually stopped), unattended, on a non-isolating (rlimit) and an
isolating (bwrap) backend. Corpora: tests/security/redteam, each frozen (committed) before it was measured.

"Stopped" counts what the policy really refused: an act that cannot be resolved statically ("unknown") counts
as caught on rlimit (denied there) but as missed on bwrap, where it is allowed to run confined.

Honest generalisation figures are the FIRST measurement of each held-out set (each was then looked at and the
classes it exposed were fixed, so the figures this script prints now for them are no longer held-out):
  before the rewrite (3af729c):  obf 34.6% (36/104), held-out 1 37.5% (15/40), everyday FP 0.4% (1/236)
  held-out 1, first run (4f88117):  39/40 = 97.5% on both backends; everyday held-out 0/48
  held-out 2, first run (before 22bb8ff):  41/44 = 93.2% rlimit, 36/44 = 81.8% bwrap; everyday 2/49 rlimit, 1/49 bwrap
  held-out 3, first run (d006b78):  32/35 = 91.4% rlimit, 29/35 = 82.9% bwrap; everyday 2/35 rlimit, 0/35 bwrap

Usage: python benchmarks/security_commands.py [--show-misses]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from grove.security.approval.policy import SafetyPolicy

REDTEAM = Path(__file__).resolve().parent.parent / "tests" / "security" / "redteam"
WORKSPACE = "/work/proj"


def lines(name: str) -> list[str]:
    """One command per line; '#' starts a comment line; a literal \\n stands for a newline."""
    text = (REDTEAM / name).read_text(encoding="utf-8")
    return [ln.replace("\\n", "\n") for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def stopped(policy: SafetyPolicy, command: str) -> bool:
    return not policy.check_command(command, workspace=WORKSPACE).allowed


def main() -> None:
    show = "--show-misses" in sys.argv
    start = time.perf_counter()
    sets = {
        "obf": lines("commands_obfuscated.txt"),
        "obf_heldout": lines("commands_obfuscated_heldout.txt"),
        "everyday": lines("commands_everyday.txt"),
        "everyday_heldout": lines("commands_everyday_heldout.txt"),
        "obf_heldout2": lines("commands_obfuscated_heldout2.txt"),
        "everyday_heldout2": lines("commands_everyday_heldout2.txt"),
        "obf_heldout3": lines("commands_obfuscated_heldout3.txt"),
        "everyday_heldout3": lines("commands_everyday_heldout3.txt"),
    }
    settings = {
        "rlimit": SafetyPolicy(allow_terminal=True, unattended=True, sandbox="rlimit"),
        "isolated": SafetyPolicy(allow_terminal=True, unattended=True, sandbox="bwrap"),
    }
    figures: dict[str, float] = {}
    print(f"{'set':<18} {'n':>4}  {'stopped (unattended, rlimit)':>30}  {'stopped (unattended, bwrap)':>30}")
    for name, items in sets.items():
        row = []
        for setting, policy in settings.items():
            hits = [c for c in items if stopped(policy, c)]
            rate = len(hits) / len(items)
            suffix = "" if setting == "rlimit" else "_isolated"
            key = f"{name}_recall{suffix}" if name.startswith("obf") else f"{name}_fpr{suffix}"
            figures[key] = rate
            row.append(f"{len(hits):>4}/{len(items):<4} {rate:7.1%}")
            wrong = [c for c in items if (c in hits) != name.startswith("obf")]
            if show and wrong:
                print(f"  {name} / {setting}: {'missed' if name.startswith('obf') else 'stopped'}:")
                for c in wrong:
                    print("     ", c.replace("\n", "\\n"))
        print(f"{name:<18} {len(items):>4}  {row[0]:>30}  {row[1]:>30}")
    elapsed = time.perf_counter() - start
    n_cmds = sum(len(v) for v in sets.values()) * len(settings)
    print(f"{n_cmds} checks in {elapsed:.2f}s ({elapsed / n_cmds * 1000:.2f} ms each)")
    out = {
        "obf_recall": figures["obf_recall"],
        "obf_heldout_recall": figures["obf_heldout_recall"],
        "obf_recall_isolated": figures["obf_recall_isolated"],
        "obf_heldout_recall_isolated": figures["obf_heldout_recall_isolated"],
        "everyday_fpr": figures["everyday_fpr"],
        "everyday_heldout_fpr": figures["everyday_heldout_fpr"],
        "everyday_fpr_isolated": figures["everyday_fpr_isolated"],
        "obf_heldout2_recall": figures["obf_heldout2_recall"],
        "obf_heldout2_recall_isolated": figures["obf_heldout2_recall_isolated"],
        "everyday_heldout2_fpr": figures["everyday_heldout2_fpr"],
        "obf_heldout3_recall": figures["obf_heldout3_recall"],
        "obf_heldout3_recall_isolated": figures["obf_heldout3_recall_isolated"],
        "everyday_heldout3_fpr": figures["everyday_heldout3_fpr"],
        "everyday_heldout3_fpr_isolated": figures["everyday_heldout3_fpr_isolated"],
    }
    print(
        " ".join(f"{k}={v:.3f}" for k, v in out.items())
        + f" everyday_n={sum(len(v) for k, v in sets.items() if k.startswith('everyday'))}"
        + f" obf_n={sum(len(v) for k, v in sets.items() if k.startswith('obf'))}"
    )


if __name__ == "__main__":
    main()
