"""The run report: a table of candidates and the front, before/after on test with the interval, lineage; and a PNG
plot (accuracy vs tokens with robustness as colour and the original marked, plus accuracy against metric calls)."""

# matplotlib is the optional [plot] extra, which the checked install (CI's) leaves out: its absence is a warning.
# pyright: reportMissingImports=warning

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def render(report: dict[str, Any]) -> Group:
    table = Table(title=f"evolution of '{report['skill']}' (validation scores)")
    for col in (
        "#",
        "origin",
        "parents",
        "bytes",
        "accuracy",
        "tokens",
        "robust",
        "front",
        "gate / why dropped",
    ):
        table.add_column(col)
    for c in report["candidates"]:
        gate = c.get("gate")
        why = c.get("dropped") or (
            "ok" if gate and gate["ok"] else "; ".join(gate["reasons"]) if gate else ""
        )
        mark = "*" if c["index"] == report["chosen"] else ""
        table.add_row(
            f"{c['index']}{mark}",
            c["origin"],
            ",".join(str(p) for p in c["parents"] if p is not None) or "-",
            str(c["bytes"]),
            _pct(c["val"]["accuracy"]),
            f"{c['val']['tokens']:.0f}",
            _pct(c["val"]["robustness"]),
            "yes" if c["on_front"] else "",
            why[:70],
        )
    test = report["test"]
    before = test["before"]
    lines = [
        f"test before: accuracy {_pct(before['accuracy'])}, {before['tokens']:.0f} tokens/task, n={before['n']}",
    ]
    if "after" in test:
        after, p = test["after"], test["paired"]
        lines.append(
            f"test after (candidate {report['chosen']}): accuracy {_pct(after['accuracy'])}, "
            f"{after['tokens']:.0f} tokens/task; diff {100 * p['diff']:+.1f} pts, 95% CI "
            f"[{100 * p['ci_low']:+.1f}, {100 * p['ci_high']:+.1f}], McNemar p={p['mcnemar_p']:.3g}"
            + (f"; not promoted: {p['why_not']}" if p.get("why_not") else "")
        )
    else:
        lines.append("no candidate passed the gate and the final rule: the original stays")
    lines.append(
        f"promote: {'yes' if report['promote'] else 'no'}; metric calls {report['metric_calls']}, "
        f"task-model tokens {report['tokens_spent']}, model calls {report['model_calls']}"
        + (" (stopped early; resume to continue)" if report.get("stopped") else "")
    )
    return Group(table, Text("\n".join(lines)))


def plot(report: dict[str, Any], path: Path) -> Path:
    """Write the PNG; needs matplotlib (an optional dependency)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cands = report["candidates"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    xs = [c["val"]["tokens"] for c in cands]
    ys = [c["val"]["accuracy"] for c in cands]
    cs = [c["val"]["robustness"] for c in cands]
    sc = ax1.scatter(xs, ys, c=cs, cmap="viridis", vmin=0, vmax=1, s=40, edgecolors="grey")
    front = [c for c in cands if c["on_front"]]
    for c in front:
        ax1.scatter([c["val"]["tokens"]], [c["val"]["accuracy"]], s=140, facecolors="none", edgecolors="red")
    ax1.scatter([xs[0]], [ys[0]], marker="*", s=260, c="black", label="original")
    chosen = cands[report["chosen"]]
    ax1.annotate(
        "chosen",
        (chosen["val"]["tokens"], chosen["val"]["accuracy"]),
        textcoords="offset points",
        xytext=(-45, 8),
    )
    ax1.set_xlabel("tokens per task (validation)")
    ax1.set_ylabel("accuracy (validation)")
    ax1.set_title("candidates; red rings = Pareto front")
    ax1.legend(loc="lower right")
    fig.colorbar(sc, ax=ax1, label="robustness")
    found = sorted(
        (c["discovered_at"] or 0, c["val"]["accuracy"]) for c in cands if c["origin"] != "crossover"
    )
    best, steps = 0.0, []
    for calls, acc in found:
        best = max(best, acc)
        steps.append((calls, best))
    steps.append((report["metric_calls"], best))
    ax2.step([s[0] for s in steps], [s[1] for s in steps], where="post")
    ax2.set_xlabel("metric calls")
    ax2.set_ylabel("best validation accuracy")
    ax2.set_title("accuracy against metric calls")
    fig.suptitle(f"grove evolve: {report['skill']}")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
