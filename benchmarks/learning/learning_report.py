"""The learning benchmark's report: per class and overall, first try vs later instances, learning off and on, each
figure with a bootstrap 95% interval over the tasks; and the paired on-minus-off differences with their intervals.

Cost is model calls and cl100k prompt tokens per task; with learning on, `+review` adds the reviewer's own calls.
"""

from __future__ import annotations

from statistics import mean
from typing import Any

from grove.evolve.stats import bootstrap_ci

Row = dict[str, Any]
METRICS = {  # name -> what one task contributes
    "success": lambda r: float(bool(r["ok"])),
    "calls": lambda r: float(r["model_calls"]),
    "prompt": lambda r: float(r["prompt_tokens"]),
    "calls+review": lambda r: float(r["model_calls"] + r.get("review_calls", 0)),
    "prompt+review": lambda r: float(r["prompt_tokens"] + r.get("review_prompt_tokens", 0)),
}


def interval(values: list[float], seed: int = 0) -> tuple[float, float, float]:
    """(mean, low, high) of a bootstrap 95% interval; one value gives a point."""
    if not values:
        return (0.0, 0.0, 0.0)
    lo, hi = bootstrap_ci(values, seed=seed)
    return (mean(values), lo, hi)


def _fmt(m: tuple[float, float, float], share: bool = False) -> str:
    if share:
        return f"{m[0]:.0%} [{m[1]:.0%},{m[2]:.0%}]"
    return f"{m[0]:.1f} [{m[1]:.1f},{m[2]:.1f}]" if m[0] < 100 else f"{m[0]:.0f} [{m[1]:.0f},{m[2]:.0f}]"


def parts(rows: list[Row]) -> dict[str, list[Row]]:
    return {"first": [r for r in rows if r["instance"] == 1], "later": [r for r in rows if r["instance"] > 1]}


def table(rows: dict[str, list[Row]], classes: list[str]) -> list[str]:
    """One line per mode, class (and `all`) and part: n, success, calls, prompt tokens (and with the review)."""
    head = f"{'mode':<4} {'class':<16} {'part':<6} {'n':>2}  {'success [95% CI]':<18} {'calls':<18} {'prompt tokens':<22}"
    lines = [head + f" {'calls+review':<18} {'prompt+review':<22}"]
    for mode, mode_rows in rows.items():
        for cls in [*classes, "all"]:
            mine = [r for r in mode_rows if cls == "all" or r["class"] == cls]
            for part, sel in parts(mine).items():
                if not sel:
                    continue
                m = {k: interval([f(r) for r in sel]) for k, f in METRICS.items()}
                line = (
                    f"{mode:<4} {cls:<16} {part:<6} {len(sel):>2}  {_fmt(m['success'], True):<18} "
                    f"{_fmt(m['calls']):<18} {_fmt(m['prompt']):<22}"
                )
                lines.append(line + f" {_fmt(m['calls+review']):<18} {_fmt(m['prompt+review']):<22}")
    return lines


def paired_differences(off: list[Row], on: list[Row]) -> dict[str, tuple[float, float, float]]:
    """On minus off for the same tasks, per part, with bootstrap 95% intervals over the tasks."""
    by_task = {r["task"]: r for r in off}
    out: dict[str, tuple[float, float, float]] = {}
    for part, sel in parts(on).items():
        pairs = [(by_task[r["task"]], r) for r in sel if r["task"] in by_task]
        for name in ("success", "calls", "prompt", "prompt+review"):
            f = METRICS[name]
            out[f"{part}_{name}"] = interval([f(b) - f(a) for a, b in pairs])  # off rows have no review
    return out


def figures(off: list[Row], on: list[Row]) -> dict[str, str]:
    """The key=value figures: each mode's first and later success and cost with intervals, and the differences."""
    out: dict[str, str] = {}
    for mode, rows in (("off", off), ("on", on)):
        for part, sel in parts(rows).items():
            for name in ("success", "calls", "prompt+review" if mode == "on" else "prompt"):
                m = interval([METRICS[name](r) for r in sel])
                key = f"{mode}_{part}_{name.replace('+', '_')}"
                out[key] = _num(name, m[0])
                out[key + "_ci"] = f"{_num(name, m[1])}..{_num(name, m[2])}"
    for key, m in paired_differences(off, on).items():
        name = f"diff_{key.replace('+', '_')}"
        out[name] = _num(key, m[0])
        out[name + "_ci"] = f"{_num(key, m[1])}..{_num(key, m[2])}"
    return out


def _num(name: str, x: float) -> str:
    return f"{x:.3f}" if "success" in name else f"{x:.2f}" if "calls" in name else f"{x:.0f}"
