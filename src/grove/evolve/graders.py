"""Graders: score one output against an item's expected value (0..1) and say why, for reflection.

Specs: `exact`, `regex` (expected is a pattern) or `regex:<pattern>`, `json` / `json:<field>,<field>` (JSON-field
match), `numeric` / `numeric:<relative tolerance>`, `python:<module>:<function>` (returns a float or
(float, feedback)), `llm` (a judge model; needs `judge=`).
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grove.llm.types import Model, ModelSettings


@dataclass(frozen=True)
class Grade:
    score: float
    feedback: str


Grader = Callable[[str, Any], Grade]
_NUM = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _norm(text: str) -> str:
    return " ".join(str(text).strip().strip("`\"'").rstrip(".").lower().split())


def final_line(output: str) -> str:
    lines = [ln for ln in output.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    return re.sub(r"^\s*(final\s+)?answer\s*[:=]\s*", "", last, flags=re.IGNORECASE)


def exact(output: str, expected: Any) -> Grade:
    ok = _norm(final_line(output)) == _norm(str(expected)) or _norm(output) == _norm(str(expected))
    return Grade(
        1.0 if ok else 0.0, "correct" if ok else f"expected {expected!r}, got {final_line(output)!r}"
    )


def regex(pattern: str | None) -> Grader:
    def grade(output: str, expected: Any) -> Grade:
        pat = pattern if pattern is not None else str(expected)
        ok = re.search(pat, output, flags=re.IGNORECASE | re.MULTILINE) is not None
        return Grade(1.0 if ok else 0.0, "matches" if ok else f"output does not match /{pat}/")

    return grade


def parse_json_object(output: str) -> dict[str, Any] | None:
    start, end = output.find("{"), output.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value = json.loads(output[start : end + 1])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def json_fields(fields: list[str] | None) -> Grader:
    """Fraction of the expected object's fields (or the named ones) the output's JSON object gets right."""

    def grade(output: str, expected: Any) -> Grade:
        want = expected if isinstance(expected, dict) else json.loads(str(expected))
        keys = fields or sorted(want)
        got = parse_json_object(output)
        if got is None:
            return Grade(0.0, f"no JSON object in the output; expected {json.dumps(want)}")
        wrong = [k for k in keys if _norm(str(got.get(k))) != _norm(str(want.get(k)))]
        score = 1.0 - len(wrong) / max(1, len(keys))
        if not wrong:
            return Grade(score, "all fields correct")
        detail = "; ".join(f"{k}: expected {want.get(k)!r}, got {got.get(k)!r}" for k in wrong)
        return Grade(score, "wrong fields: " + detail)

    return grade


def numeric(tolerance: float) -> Grader:
    def grade(output: str, expected: Any) -> Grade:
        want = float(expected)
        found = _NUM.findall(final_line(output)) or _NUM.findall(output)
        if not found:
            return Grade(0.0, f"no number in the output; expected {want:g}")
        got = float(found[-1].replace(",", ""))
        ok = abs(got - want) <= tolerance * max(1.0, abs(want))
        return Grade(1.0 if ok else 0.0, "correct" if ok else f"expected {want:g}, got {got:g}")

    return grade


def python_function(ref: str) -> Grader:
    module, _, name = ref.rpartition(":")
    fn = getattr(importlib.import_module(module), name)

    def grade(output: str, expected: Any) -> Grade:
        value = fn(output, expected)
        if isinstance(value, tuple):
            return Grade(float(value[0]), str(value[1]))
        return Grade(float(value), "")

    return grade


def llm_judge(judge: Model) -> Grader:
    def grade(output: str, expected: Any) -> Grade:
        prompt = (
            "Does the answer match the reference? Reply PASS or FAIL on the first line, then one sentence why.\n"
            f"Reference: {expected}\nAnswer: {output}"
        )
        reply = judge.complete([{"role": "user", "content": prompt}], [], ModelSettings(temperature=0.0)).text
        ok = reply.strip().upper().startswith("PASS")
        return Grade(1.0 if ok else 0.0, reply.strip()[:300])

    return grade


def make_grader(spec: str | None, judge: Model | None = None) -> Grader:
    spec = spec or "exact"
    kind, _, arg = spec.partition(":")
    if kind == "exact":
        return exact
    if kind == "regex":
        return regex(arg or None)
    if kind == "json":
        return json_fields([f.strip() for f in arg.split(",") if f.strip()] or None)
    if kind == "numeric":
        return numeric(float(arg) if arg else 1e-6)
    if kind == "python":
        return python_function(arg)
    if kind == "llm":
        if judge is None:
            raise ValueError("the llm grader needs a judge model (--judge-model)")
        return llm_judge(judge)
    raise ValueError(f"unknown grader {spec!r}: use exact, regex, json, numeric, python:<mod>:<fn> or llm")
