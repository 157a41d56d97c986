"""Evolve a tool-using procedure skill (`csv-total`, procedure.py) with episodes run by grove's agent: a Session per
run, the files and terminal tools, commands in the sandbox, a workspace built per item and variant, the result
graded from the workspace (`file:total.txt`). Prints the candidates and the front (validation), the held-out test
before/after with the 95% interval, writes the front as a PNG, and ends with one key=value line.

    python benchmarks/evolve/run_procedure.py                      # scripted agent + scripted reflection
    python benchmarks/evolve/run_procedure.py --model local:qwen2.5-coder-1.5b --reflection-model SPEC

`--model script` (default) is a scripted agent that follows the skill's text literally and makes real tool calls;
`--reflection-model script` (default) a scripted reflection model that reads gepa's reflective prompt; `none` turns
reflection off (deterministic operators only). Any grove model spec works for both.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procedure import (
    NAME,
    SKILL,
    fixed_skill,
    make_items,
    scripted_agent,
    scripted_reflection,
    write_dataset,
    write_skill,
)

HERE = Path(__file__).resolve().parent


def plot_front(report: dict[str, Any], path: Path) -> Path:
    """Left: accuracy against tokens (front ringed, original starred). Right: robustness against accuracy, with the
    diagonal where they would be equal (the old default: one sample, no perturbation)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cands = report["candidates"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (x, y) in ((ax1, ("tokens", "accuracy")), (ax2, ("accuracy", "robustness"))):
        xs = [c["val"][x] for c in cands]
        ys = [c["val"][y] for c in cands]
        ax.scatter(xs, ys, s=30, c="tab:blue", alpha=0.6, label="candidates")
        front = [c for c in cands if c["on_front"]]
        ax.scatter([c["val"][x] for c in front], [c["val"][y] for c in front], s=120, facecolors="none",
                   edgecolors="red", label="Pareto front")  # fmt: skip
        ax.scatter([xs[0]], [ys[0]], marker="*", s=220, c="black", label="original")
        chosen = cands[report["chosen"]]["val"]
        ax.annotate("chosen", (chosen[x], chosen[y]), textcoords="offset points", xytext=(-40, 8))
        if y != "tokens":
            ax.set_ylim(-0.05, 1.12)
        ax.set_xlabel(f"{x} (validation)")
        ax.set_ylabel(f"{y} (validation)")
    ax2.plot([0, 1], [0, 1], ls=":", c="grey", label="robustness = accuracy")
    ax1.set_title("accuracy vs tokens per episode")
    ax2.set_title("robustness (worst of 3 variants) vs accuracy")
    ax2.legend(loc="upper left", fontsize=8)
    fig.suptitle(f"grove evolve: {report['skill']} (agent episodes, {report['task_model']})")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def table(report: dict[str, Any]) -> str:
    rows = [
        "| # | origin | parents | accuracy | robustness | tokens/episode | front | chosen |",
        "|---" * 8 + "|",
    ]
    for c in report["candidates"]:
        v = c["val"]
        parents = ",".join(str(p) for p in c["parents"] if p is not None) or "-"
        rows.append(
            f"| {c['index']} | {c['origin']} | {parents} | {100 * v['accuracy']:.1f}% | "
            f"{100 * v['robustness']:.1f}% | {v['tokens']:.0f} | {'yes' if c['on_front'] else ''} | "
            f"{'*' if c['index'] == report['chosen'] else ''} |"
        )
    return "\n".join(rows)


def compare(runner: Any, n: int, seed: int, work: Path) -> None:
    """Seed skill vs the fixed one on the first n items (3 variants each), without a search: what a model does with
    each, for models too slow for a full run."""
    from grove.evolve.dataset import example_from
    from grove.evolve.evaluate import EvalConfig, Evaluator

    items = [example_from(x, i) for i, x in enumerate(make_items(n, seed))]
    figures = []
    for label, text in (("seed", SKILL), ("fixed", fixed_skill())):
        ev = Evaluator(runner=runner, work_root=work, config=EvalConfig(max_tokens=512))
        start = time.monotonic()
        results = ev.run(text, label, items)
        for r in results:
            print(
                f"{label} {r.id}: accuracy {r.accuracy:.2f} robustness {r.robustness:.2f}; {r.trace[0][:300]}"
            )
        acc = sum(r.accuracy for r in results) / n
        rob = sum(r.robustness for r in results) / n
        tok = sum(r.tokens for r in results) / n
        figures.append(f"{label}_acc={acc:.3f} {label}_robust={rob:.3f} {label}_tokens={tok:.0f} "
                       f"{label}_seconds={time.monotonic() - start:.0f}")  # fmt: skip
    print(f"model={runner.name} items={n} " + " ".join(figures))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="script")
    ap.add_argument("--reflection-model", default="script")
    ap.add_argument("--budget", type=int, default=150)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "grove-evolve-procedure")
    ap.add_argument("--plot", type=Path, default=HERE / "plots" / "csv-total-front.png")
    ap.add_argument(
        "--max-token-ratio", type=float, default=1.3, help="the final rule's token cap vs the original"
    )
    ap.add_argument(
        "--allow-unisolated", action="store_true", help="run commands with rlimits only (no bwrap)"
    )
    ap.add_argument("--lean", action="store_true", help="grove's lean system prompt (small local models)")
    ap.add_argument("--max-iterations", type=int, default=12, help="model calls per episode")
    ap.add_argument(
        "--compare", type=int, default=0, help="only score the seed and the fixed skill on N items"
    )
    args = ap.parse_args()
    # GROVE_HOME stays the user's (a local model is assembled there once); episodes get their own home anyway
    from grove.config import Settings
    from grove.evolve.evaluate import EvalConfig
    from grove.evolve.run import EvolveConfig, run_evolution
    from grove.llm.spec import build_model
    from grove.runtime.evolve_episode import AgentRunner

    settings = Settings()
    task = scripted_agent() if args.model == "script" else build_model(args.model, settings, long_lived=True)
    refl = {"script": scripted_reflection, "none": lambda: None}.get(args.reflection_model)
    reflection = refl() if refl else build_model(args.reflection_model, settings, long_lived=True)
    run_dir = args.out / "runs" / f"{NAME}-{args.model.replace(':', '_').replace('/', '_')}-{args.budget}"
    if run_dir.exists():
        import shutil

        shutil.rmtree(run_dir)
    skill = write_skill(args.out / "skills")
    data = write_dataset(args.out / "csv-total.jsonl", args.items, args.seed)
    runner = AgentRunner(
        settings,
        task,
        home=run_dir / "agent-home",
        max_iterations=args.max_iterations,
        allow_unisolated=args.allow_unisolated,
        lean=args.lean,
    )
    if args.compare:
        compare(runner, args.compare, args.seed, run_dir / "work")
        return
    ops = (["reflect"] if reflection else []) + ["shorten", "drop", "examples"]
    cfg = EvolveConfig(
        budget=args.budget,
        seed=args.seed,
        operators=ops,
        fractions=(0.3, 0.1, 0.6),
        eval=EvalConfig(max_tokens=512, allow_unisolated=args.allow_unisolated),
        max_token_ratio=args.max_token_ratio,
    )
    start = time.monotonic()
    report = run_evolution(skill, data, run_dir, None, reflection, cfg, runner=runner)
    seconds = time.monotonic() - start
    report["task_model"] = task.name
    print(table(report))
    test = report["test"]
    before = test["before"]
    after = test.get("after", before)
    paired = test.get("paired") or {
        "ci_low": 0.0,
        "ci_high": 0.0,
        "mcnemar_p": 1.0,
        "why_not": "no candidate",
    }
    print(
        f"\ntest n={before['n']} items x 3 variants: accuracy {100 * before['accuracy']:.1f}% -> "
        f"{100 * after['accuracy']:.1f}%, robustness {100 * before['robustness']:.1f}% -> "
        f"{100 * after['robustness']:.1f}%, tokens/episode {before['tokens']:.0f} -> {after['tokens']:.0f}; "
        f"gain 95% CI [{100 * paired['ci_low']:+.1f}, {100 * paired['ci_high']:+.1f}] pts, "
        f"McNemar p={paired['mcnemar_p']:.3g}; promoted: {'yes' if report['promote'] else 'no'}"
        + (f" ({paired['why_not']})" if paired.get("why_not") else "")
    )
    try:
        path = plot_front(report, args.plot)
        print(f"plot: {path} ({path.stat().st_size // 1024} KB)")
    except ImportError:
        print("plot skipped: matplotlib is not installed")
    front = [c for c in report["candidates"] if c["on_front"]]
    differs = sum(1 for c in front if abs(c["val"]["accuracy"] - c["val"]["robustness"]) > 1e-9)
    episodes = report["model_calls"]
    print(
        f"model={task.name} test_n={before['n']} acc_before={before['accuracy']:.3f} acc_after={after['accuracy']:.3f} "
        f"robust_before={before['robustness']:.3f} robust_after={after['robustness']:.3f} "
        f"ci_low={paired['ci_low']:.3f} ci_high={paired['ci_high']:.3f} promoted={int(report['promote'])} "
        f"candidates={len(report['candidates'])} front={len(front)} front_robust_ne_acc={differs} "
        f"metric_calls={report['metric_calls']} model_calls={episodes} seconds={seconds:.0f}"
    )


if __name__ == "__main__":
    main()
