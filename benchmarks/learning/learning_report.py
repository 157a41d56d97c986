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


def stream_line(name: str, off: list[Row], on: list[Row]) -> dict[str, str]:
    """One stream's later-instance figures: calls and success off and on, the paired differences with their
    intervals, and the share of calls saved."""
    later_off, later_on = parts(off)["later"], parts(on)["later"]
    d = paired_differences(off, on)
    calls_off = mean(METRICS["calls"](r) for r in later_off) if later_off else 0.0
    calls_on = mean(METRICS["calls"](r) for r in later_on) if later_on else 0.0
    return {
        "stream": name,
        "later_n": str(len(later_on)),
        "later_calls_off": f"{calls_off:.2f}",
        "later_calls_on": f"{calls_on:.2f}",
        "calls_saved": f"{(calls_off - calls_on) / calls_off:.3f}" if calls_off else "0.000",
        "diff_later_calls": f"{d['later_calls'][0]:.2f}",
        "diff_later_calls_ci": f"{d['later_calls'][1]:.2f}..{d['later_calls'][2]:.2f}",
        "later_success_off": f"{mean(METRICS['success'](r) for r in later_off):.3f}" if later_off else "0",
        "later_success_on": f"{mean(METRICS['success'](r) for r in later_on):.3f}" if later_on else "0",
        "diff_later_success": f"{d['later_success'][0]:.3f}",
        "diff_later_success_ci": f"{d['later_success'][1]:.3f}..{d['later_success'][2]:.3f}",
    }


def streams_report(named: dict[str, dict[str, list[Row]]]) -> list[str]:
    """Per stream, its later-instance figures; then their spread (min..max over the streams) and the streams
    pooled (tasks paired within their own stream); the last line key=value."""
    lines, figures = [], {}
    per = [stream_line(n, s["off"], s["on"]) for n, s in named.items()]
    for p in per:
        lines.append(" ".join(f"{k}={v}" for k, v in p.items()))
    pooled_off = [{**r, "task": f"{n}/{r['task']}"} for n, s in named.items() for r in s["off"]]
    pooled_on = [{**r, "task": f"{n}/{r['task']}"} for n, s in named.items() for r in s["on"]]
    pooled = stream_line("pooled", pooled_off, pooled_on)
    for key in (
        "calls_saved",
        "diff_later_calls",
        "diff_later_success",
        "later_calls_on",
        "later_success_on",
    ):
        values = [float(p[key]) for p in per]
        figures[f"{key}_spread"] = f"{min(values):.3f}..{max(values):.3f}"
    figures.update({f"pooled_{k}": v for k, v in pooled.items() if k != "stream"})
    hi_calls = float(pooled["diff_later_calls_ci"].split("..")[1])
    lo_success = float(pooled["diff_later_success"])
    figures["goal_met"] = str(
        float(pooled["calls_saved"]) >= 0.30 and hi_calls < 0 and lo_success >= 0
        and all(float(p["calls_saved"]) >= 0.30 for p in per)
    ).lower()  # fmt: skip
    figures["streams"] = str(len(per))
    by_class: dict[str, dict[str, list[float]]] = {}
    for mode, rows in (("off", pooled_off), ("on", pooled_on)):
        for r in parts(rows)["later"]:
            c = by_class.setdefault(r["class"], {"off_calls": [], "on_calls": [], "off_ok": [], "on_ok": []})
            c[f"{mode}_calls"].append(METRICS["calls"](r))
            c[f"{mode}_ok"].append(METRICS["success"](r))
    lines.append("per class, later instances pooled (off -> on): success, calls")
    for cls, c in by_class.items():
        lines.append(
            f"  {cls:<18} {mean(c['off_ok']):.2f} -> {mean(c['on_ok']):.2f}   "
            f"{mean(c['off_calls']):.2f} -> {mean(c['on_calls']):.2f}"
        )
    lines.append(" ".join(f"{k}={v}" for k, v in figures.items()))
    return lines


def main(argv: list[str] | None = None) -> int:
    """python learning_report.py rows-A.json rows-B.json ...: the streams' figures and their spread."""
    import json
    import sys
    from pathlib import Path

    named = {}
    for arg in argv if argv is not None else sys.argv[1:]:
        data = json.loads(Path(arg).read_text())
        meta = data.get("meta") or {}
        named[f"seed{meta.get('seed', '?')}-t{meta.get('threads', '?')}-{Path(arg).stem}"] = data
    for line in streams_report(named):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
