"""The canonical example as a scripted model (tests and benchmark): "read X.csv, compute a 7-day moving average of
the C column, save to Y.csv". It plans from what it perceives, writes two code skills when they are missing
(optionally with a buggy first attempt), calls them, and writes the result.
"""

from __future__ import annotations

import json
import re
from typing import Any

from grove.llm.types import Message, ToolSchema

CSV_CODE = '''import csv


def solve(path: str, column: str) -> list[float]:
    """The values of one numeric column of a CSV file with a header row."""
    with open(path, newline="", encoding="utf-8") as f:
        return [float(row[column]) for row in csv.DictReader(f)]
'''

CSV_TESTS = """from skill import solve


def test_reads_the_named_column(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("day,revenue,cost\\n1,10,3\\n2,12.5,4\\n")
    assert solve(str(p), "revenue") == [10.0, 12.5]
    assert solve(str(p), "cost") == [3.0, 4.0]
"""

AVG_CODE = '''def solve(values: list[float], window: int = 7) -> list[float]:
    """Trailing moving average: item i averages the last `window` values up to i (fewer at the start)."""
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out
'''

AVG_CODE_BUGGY = AVG_CODE.replace("i - window + 1", "i - window")  # averages one value too many

AVG_TESTS = """from skill import solve


def test_short_window():
    assert solve([1, 2, 3, 4], 2) == [1, 1.5, 2.5, 3.5]


def test_default_window_of_seven():
    assert solve([7.0] * 10) == [7.0] * 10
    assert solve(list(range(1, 9)))[-1] == sum(range(2, 9)) / 7
"""

CSV_SKILL, AVG_SKILL = "csv-column", "moving-average"
GOAL_RE = re.compile(
    r"read (?P<src>[\w./-]+), compute a 7-day moving average of the (?P<col>\w+) column, save to (?P<out>[\w./-]+?)\.?$"
)
_STEP_RE = re.compile(r"Step \d+ of the plan: (?P<kind>\w+)(?: (?P<skill>[a-z0-9-]+))?:")


def goal(src: str, column: str, out: str) -> str:
    return f"read {src}, compute a 7-day moving average of the {column} column, save to {out}"


class CanonicalScript:
    """A step function for ScriptModel; `buggy_first` makes its first moving-average attempt off by one."""

    def __init__(self, buggy_first: bool = False) -> None:
        self.buggy_first = buggy_first
        self.values: list[float] | None = None
        self.averages: list[float] | None = None
        self.pending = ""
        self.attempts: dict[str, int] = {}

    def __call__(self, messages: list[Message], tools: list[ToolSchema]) -> dict[str, Any]:
        if tools and tools[0]["function"]["name"] == "submit_plan":
            return self._plan(messages)
        return self._act(messages)

    # -- planning: from the perceived environment ---------------------------------------------------------------
    def _plan(self, messages: list[Message]) -> dict[str, Any]:
        env = str(messages[-1]["content"])
        g = _goal(messages)
        skills = set(re.findall(r"^- ([a-z0-9-]+): solve\(", env, re.M))
        saved = re.search(rf"^- {re.escape(g['out'])} \(", env, re.M) is not None
        steps: list[dict[str, str]] = []
        if saved and self.averages is not None:
            steps.append(
                {"kind": "done", "detail": f"saved the 7-day moving average of {g['col']} to {g['out']}"}
            )
            return _call("submit_plan", {"steps": steps})
        for name, what in ((CSV_SKILL, "read one column of a CSV"), (AVG_SKILL, "trailing moving average")):
            if name not in skills:
                steps.append({"kind": "write_skill", "skill": name, "detail": what})
        ref = {n: (n if n in skills else f"new:{n}") for n in (CSV_SKILL, AVG_SKILL)}
        if self.values is None:
            steps.append(
                {"kind": "call_skill", "skill": ref[CSV_SKILL], "detail": f"{g['col']} of {g['src']}"}
            )
        if self.averages is None:
            steps.append({"kind": "call_skill", "skill": ref[AVG_SKILL], "detail": "window 7"})
        steps.append({"kind": "write_result", "detail": f"write {g['out']}"})
        steps.append({"kind": "done", "detail": "report"})
        return _call("submit_plan", {"steps": steps})

    # -- acting: one step, one or two tool calls -------------------------------------------------------------------
    def _act(self, messages: list[Message]) -> dict[str, Any]:
        g = _goal(messages)
        start = max(i for i, m in enumerate(messages) if m["role"] == "user")
        step = _STEP_RE.search(str(messages[start]["content"]))
        assert step is not None, "not an act prompt"
        kind, skill = step["kind"], step["skill"] or ""
        after = messages[start + 1 :]
        if after and after[-1]["role"] == "tool":
            content = str(after[-1]["content"])
            if content.startswith("Error:") and kind == "write_skill" and self.attempts.get(skill, 0) < 3:
                return self._write(skill)  # the tests failed: revise and retry
            if not content.startswith("Error:") and after[-1].get("name") == "skill_run":
                result = json.loads(content)["result"]
                if self.pending == CSV_SKILL:
                    self.values = result
                else:
                    self.averages = result
            return {"text": f"{kind} {skill}: {content[:120]}"}
        if kind == "write_skill":
            return self._write(skill)
        if kind == "call_skill":
            self.pending = skill
            args: dict[str, Any] = (
                {"path": g["src"], "column": g["col"]}
                if skill == CSV_SKILL
                else {"values": self.values, "window": 7}
            )
            return _call("skill_run", {"name": skill, "args": args})
        if kind == "write_result":
            assert self.values is not None and self.averages is not None
            rows = "".join(f"{v},{a:.6f}\n" for v, a in zip(self.values, self.averages, strict=True))
            return _call("write_file", {"path": g["out"], "content": f"{g['col']},{g['col']}_ma7\n{rows}"})
        return {"text": "nothing to do"}

    def _write(self, skill: str) -> dict[str, Any]:
        n = self.attempts[skill] = self.attempts.get(skill, 0) + 1
        if skill == CSV_SKILL:
            code, tests, about = (
                CSV_CODE,
                CSV_TESTS,
                "Read one numeric column of a CSV file as a list of numbers.",
            )
        else:
            code = AVG_CODE_BUGGY if self.buggy_first and n == 1 else AVG_CODE
            tests, about = AVG_TESTS, "Trailing moving average of a list of numbers over a window."
        return _call("skill_code_create", {"name": skill, "description": about, "code": code, "tests": tests})


def _goal(messages: list[Message]) -> dict[str, str]:
    for m in messages:
        if m["role"] == "user":
            found = re.search(r"^Goal: (.+)$", str(m["content"]), re.M)
            if found and (g := GOAL_RE.search(found.group(1).strip())):
                return g.groupdict()
    raise AssertionError("no canonical goal in the conversation")


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}
