"""Claims checked against evidence: precision and recall of the checker's marks on a labelled corpus of scripted
turns (benchmarks/data/claims), and the time the check adds per turn.

A mark is a verdict of contradicted or unverifiable. Precision: of the checker's marks, the share on a claim the
corpus labels contradicted or unverifiable. Recall: of those labelled claims, the share the checker marked.
The parts were written one after another; each but the first was scored once as the checker stood, then the
classes it exposed were added (so it is tuned on now; `clean3` too, since 2026-12-07). The `sealed` parts were
written by someone who never read or ran the checker and are the out-of-sample figure (`_clean`/`_sealed` in the
last line: the same parts). Run: python benchmarks/claims.py [-v]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from grove.claims.turn import check_answer
from grove.claims.types import MARKED, Verdict

DATA = Path(__file__).parent / "data" / "claims"
RANK = {"supported": 0, "unverifiable": 1, "contradicted": 2}


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def score(turns: list[dict[str, Any]], verbose: bool) -> dict[str, Any]:
    tp = fp = fn = gold_marked = exact = 0
    times: list[float] = []
    for turn in turns:
        answer = turn["answer"]
        start = time.perf_counter()
        verdicts: list[Verdict] = check_answer(answer, turn["calls"])
        times.append(time.perf_counter() - start)
        gold = []
        for c in turn["claims"]:
            at = answer.index(c["quote"])
            gold.append(((at, at + len(c["quote"])), c["label"], c["quote"]))
        for v in verdicts:
            if not v.marked:
                continue
            span = (v.claim.start, v.claim.end)
            if any(overlaps(span, g[0]) and g[1] in MARKED for g in gold):
                tp += 1
            else:
                fp += 1
                if verbose:
                    print(f"  FP {turn['id']}: {v.claim.kind} {v.label} {v.claim.text!r} ({v.reason})")
        for span, label, quote in gold:
            hits = [v for v in verdicts if overlaps((v.claim.start, v.claim.end), span)]
            predicted = max((v.label for v in hits), key=RANK.__getitem__, default="supported")
            exact += predicted == label
            if label in MARKED:
                gold_marked += 1
                if predicted not in MARKED:
                    fn += 1
                    if verbose:
                        why = "; ".join(f"{v.claim.kind}:{v.label} {v.reason}" for v in hits) or "not found"
                        print(f"  FN {turn['id']}: {quote!r} labelled {label} ({why})")
            elif verbose and predicted != label:
                print(f"  (label) {turn['id']}: {quote!r} {label} -> {predicted}")
    n_gold = sum(len(t["claims"]) for t in turns)
    return {
        "turns": len(turns),
        "claims": n_gold,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "marked": gold_marked,
        "exact": exact,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": (gold_marked - fn) / gold_marked if gold_marked else 1.0,
        "accuracy": exact / n_gold if n_gold else 1.0,
        "times": times,
    }


# Each part's figures the one time it was scored before any change it prompted (see data/claims/README.md).
FIRST_CLEAN = {
    "fresh": (0.611, 0.611),
    "unseen": (0.400, 0.364),
    "blind": (0.750, 0.643),
    "final": (0.833, 0.333),
    "clean": (1.000, 0.900),
    "clean2": (0.786, 0.733),
    "clean3": (0.714, 0.714),
    "sealed": (0.820, 0.612),  # pooled with qwen, 2026-12-07 at 6a61b26 (qwen alone 0.500 / 0.400)
}
TUNED = ("tune", "heldout", "fresh", "unseen", "blind", "final", "clean", "clean2", "clean3")
# written by a helper who never read or ran the checker (scripted, and real turns on the local Qwen); never tuned on
SEALED = ("sealed", "qwen")


def pool(results: dict[str, dict[str, Any]], parts: tuple[str, ...]) -> dict[str, float]:
    """Precision and recall over several parts' claims together (1.0 where there is nothing to count)."""
    c = {k: sum(results[p][k] for p in parts) for k in ("tp", "fp", "fn", "marked")}
    return {
        "precision": c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0,
        "recall": (c["marked"] - c["fn"]) / c["marked"] if c["marked"] else 1.0,
        "marked": c["marked"],
    }


def main() -> None:
    verbose = "-v" in sys.argv
    results = {}
    for part in (*TUNED, *SEALED):
        turns = yaml.safe_load((DATA / f"{part}.yaml").read_text(encoding="utf-8"))
        if verbose:
            print(f"{part}:")
        r = results[part] = score(turns, verbose)
        first = FIRST_CLEAN.get(part)
        note = f" (first clean scoring: P={first[0]:.3f} R={first[1]:.3f})" if first else ""
        print(
            f"{part:8s} turns={r['turns']:3d} claims={r['claims']:3d} precision={r['precision']:.3f} "
            f"recall={r['recall']:.3f} verdict_accuracy={r['accuracy']:.3f}{note}"
        )
    pooled = {k: sum(results[p][k] for p in TUNED) for k in ("tp", "fp", "fn", "marked")}
    tuned_p = pooled["tp"] / (pooled["tp"] + pooled["fp"])
    tuned_r = (pooled["marked"] - pooled["fn"]) / pooled["marked"]
    clean = sealed = pool(results, SEALED)
    times = [t for r in results.values() for t in r["times"]]
    p50, worst = statistics.median(times) * 1000, max(times) * 1000
    print(
        f"tuned parts pooled: precision={tuned_p:.3f} recall={tuned_r:.3f} over {pooled['marked']} marked claims"
    )
    print(
        f"sealed parts pooled: precision={sealed['precision']:.3f} recall={sealed['recall']:.3f} over {sealed['marked']} marked"
    )
    print(f"added time per turn: p50={p50:.3f} ms max={worst:.3f} ms (no model call)")
    print(
        f"claims_precision_clean={clean['precision']:.3f} claims_recall_clean={clean['recall']:.3f} "
        f"claims_precision_tuned={tuned_p:.3f} claims_recall_tuned={tuned_r:.3f} added_ms_per_turn_p50={p50:.3f} "
        f"claims_precision_sealed={sealed['precision']:.3f} claims_recall_sealed={sealed['recall']:.3f}"
    )


if __name__ == "__main__":
    main()
