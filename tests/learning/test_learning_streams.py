"""The learning report over several streams: each stream's later-instance figures, their spread, the streams
pooled with tasks paired inside their own stream, and whether the goal (>= 30% fewer calls, no loss) holds."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "learning"))

from learning_report import streams_report


def _rows(calls: list[int], ok: list[bool]) -> list[dict]:
    return [
        {"task": f"c#{i}", "class": "c", "instance": i, "ok": k, "model_calls": n, "prompt_tokens": 100 * n}
        for i, (n, k) in enumerate(zip(calls, ok, strict=True), start=1)
    ]


def test_two_streams_give_their_spread_and_the_goal_only_when_both_save_calls() -> None:
    good = {"off": _rows([6, 6, 6, 6], [True] * 4), "on": _rows([6, 2, 2, 2], [True] * 4)}
    flat = {"off": _rows([6, 6, 6, 6], [True] * 4), "on": _rows([6, 6, 6, 6], [True] * 4)}
    lines = streams_report({"a": good, "b": flat})
    figures = dict(kv.split("=", 1) for kv in lines[-1].split())
    assert (
        lines[0].startswith("stream=a ")
        and "calls_saved=0.667" in lines[0]
        and "calls_saved=0.000" in lines[1]
    )
    assert figures["calls_saved_spread"] == "0.000..0.667" and figures["pooled_later_n"] == "6"
    assert figures["pooled_calls_saved"] == "0.333" and figures["goal_met"] == "false"
    assert (
        dict(kv.split("=", 1) for kv in streams_report({"a": good, "b": good})[-1].split())["goal_met"]
        == "true"
    )
