"""Claims checked against evidence: precision and recall of the checker's marks on a labelled corpus of scripted
turns (benchmarks/data/claims), the tuning part and the held-out part apart, and the time it adds per turn.

Parts: tune (developed against), heldout (written with it, before the checker, but read while the checker's
patterns were designed, so not a clean test), fresh (written after the checker, scored as it stood: the honest
out-of-sample figure). A mark is a verdict of contradicted or unverifiable. Precision: of the checker's marks, the share on a claim the
corpus labels contradicted or unverifiable. Recall: of those labelled claims, the share the checker marked.
Run: python benchmarks/claims.py [-v]
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


def score(turns: list[dict[str, Any]], verbose: bool) -> dict[str, float]:
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
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": (gold_marked - fn) / gold_marked if gold_marked else 1.0,
        "accuracy": exact / n_gold if n_gold else 1.0,
        "ms_p50": statistics.median(times) * 1000,
        "ms_max": max(times) * 1000,
    }


def main() -> None:
    verbose = "-v" in sys.argv
    results = {}
    for part in ("tune", "heldout", "fresh"):
        turns = yaml.safe_load((DATA / f"{part}.yaml").read_text(encoding="utf-8"))
        if verbose:
            print(f"{part}:")
        r = results[part] = score(turns, verbose)
        print(
            f"{part:8s} turns={r['turns']:3d} claims={r['claims']:3d} precision={r['precision']:.3f} "
            f"recall={r['recall']:.3f} verdict_accuracy={r['accuracy']:.3f} added_ms_p50={r['ms_p50']:.3f} "
            f"added_ms_max={r['ms_max']:.3f}"
        )
    t, h, f = results["tune"], results["heldout"], results["fresh"]
    p50 = statistics.median(r["ms_p50"] for r in results.values())
    print(
        f"claims_precision_tune={t['precision']:.3f} claims_recall_tune={t['recall']:.3f} "
        f"claims_precision_heldout={h['precision']:.3f} claims_recall_heldout={h['recall']:.3f} "
        f"claims_precision_fresh={f['precision']:.3f} claims_recall_fresh={f['recall']:.3f} "
        f"added_ms_per_turn_p50={p50:.3f}"
    )


if __name__ == "__main__":
    main()
