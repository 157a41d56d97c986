"""Run grove evolve on the three suites and print test accuracy before/after with 95% intervals, tokens per task,
metric calls, and the plot paths. Default: the embedded local model as task model, deterministic operators; `--model sim` uses the skill-literal
simulator (simulator.py) to check the machinery without an LLM.

    python benchmarks/evolve/run_suites.py [--model local] [--reflection-model SPEC] [--budget 60]
        [--suites refund,units,extract] [--items 270] [--out /tmp/grove-evolve-bench]

With fractions (0.3, 0.1, 0.6) and 270 items a suite has 162 held-out test items. The embedded model reads prompts
at ~100 tokens/s, so keep budgets small; every figure printed comes from this script.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from simulator import simulator
from suites import SUITES, write_suite

MAX_TOKENS = {"refund": 8, "units": 12, "extract": 40}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="local")
    ap.add_argument("--reflection-model", default=None)
    ap.add_argument("--budget", type=int, default=60)
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--items", type=int, default=270)
    ap.add_argument("--out", type=Path, default=Path("/tmp/grove-evolve-bench"))
    args = ap.parse_args()
    os.environ.setdefault("GROVE_HOME", str(args.out / "home"))

    from grove.config import Settings
    from grove.evolve.evaluate import EvalConfig
    from grove.evolve.report import plot
    from grove.evolve.run import EvolveConfig, run_evolution
    from grove.llm.spec import build_model

    settings = Settings()
    shared = None if args.model == "sim" else build_model(args.model, settings)
    refl = build_model(args.reflection_model, settings) if args.reflection_model else None
    ops = ["examples", "shorten", "drop"] + (["reflect"] if refl else [])
    rows = []
    for suite in args.suites.split(","):
        folder, data = write_suite(args.out / "suites", suite, args.items)
        task = shared or simulator(suite)
        cfg = EvolveConfig(
            budget=args.budget,
            operators=ops,
            fractions=(0.3, 0.1, 0.6),
            minibatch=3,
            eval=EvalConfig(max_tokens=MAX_TOKENS[suite]),
        )
        run_dir = (
            args.out / "runs" / f"{suite}-{args.model.replace(':', '_').replace('/', '_')}-{args.budget}"
        )
        started = time.time()
        report = run_evolution(folder, data, run_dir, task, refl, cfg, show_progress=True)
        png = plot(report, run_dir / "front.png")
        t = report["test"]
        row = {
            "suite": suite,
            "model": args.model,
            "test_n": t["before"]["n"],
            "before": t["before"]["accuracy"],
            "after": t.get("after", t["before"])["accuracy"],
            "ci": [t["paired"]["ci_low"], t["paired"]["ci_high"]] if "paired" in t else None,
            "mcnemar_p": t["paired"]["mcnemar_p"] if "paired" in t else None,
            "tokens_before": t["before"]["tokens"],
            "tokens_after": t.get("after", t["before"])["tokens"],
            "metric_calls": report["metric_calls"],
            "task_tokens": report["tokens_spent"],
            "candidates": len(report["candidates"]),
            "chosen": report["chosen"],
            "promote": report["promote"],
            "seconds": round(time.time() - started),
            "plot": str(png),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    print("\nsuite    n    before  after   95% CI of diff      McNemar p  tokens/task b->a  calls  promote")
    for r in rows:
        ci = f"[{100 * r['ci'][0]:+.1f}, {100 * r['ci'][1]:+.1f}]" if r["ci"] else "(original kept)"
        p = f"{r['mcnemar_p']:.3g}" if r["mcnemar_p"] is not None else "-"
        print(
            f"{r['suite']:<8} {r['test_n']:<4} {100 * r['before']:5.1f}%  {100 * r['after']:5.1f}%  {ci:<19} {p:<10} "
            f"{r['tokens_before']:.0f}->{r['tokens_after']:.0f}       {r['metric_calls']:<6} {r['promote']}"
        )


if __name__ == "__main__":
    main()
