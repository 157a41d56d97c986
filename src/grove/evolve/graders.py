"""Graders: score one attempt (the agent's answer and the workspace it left) against an item's expected value (0..1)
and say why, for reflection. Only registered graders exist: no spec can name arbitrary Python (a dataset is data).

Specs: `exact`, `regex` (expected is a pattern) or `regex:<pattern>`, `json` / `json:<field>,<field>` (JSON-field
match), `numeric` / `numeric:<relative tolerance>`, `file:<path>` (a workspace file's text, numbers with tolerance),
`llm` (a judge model; needs `judge=`), `code:<file.py>[:<function>]` (the dataset author's grader, run in the
sandbox; see code_grader.py), and any name a program added with `register_grader`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grove.evolve.attempt import Attempt, Grade, Grader, as_attempt
from grove.llm.types import Model, ModelSettings

__all__ = ["Attempt", "Grade", "Grader", "make_grader", "register_grader"]


@dataclass(frozen=True)
class GraderContext:
    judge: Model | None = None
    base: Path | None = None  # relative `code:` paths are read from here (the dataset's folder)
    allow_unisolated: bool = False  # sandboxed graders may run with rlimits only when no isolation exists


Factory = Callable[[str, GraderContext], Grader]
_REGISTRY: dict[str, Factory] = {}
_NUM = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def register_grader(name: str, factory: Factory) -> None:
    """Add a grader kind (code a program runs on purpose, never a name a dataset can make up)."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        raise ValueError(f"grader name {name!r}: use lowercase letters, digits, '-' and '_'")
    _REGISTRY[name] = factory


def registered() -> list[str]:
    return sorted(_REGISTRY)


def _norm(text: str) -> str:
    return " ".join(str(text).strip().strip("`\"'").rstrip(".").lower().split())


def final_line(output: str) -> str:
    lines = [ln for ln in output.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    return re.sub(r"^\s*(final\s+)?answer\s*[:=]\s*", "", last, flags=re.IGNORECASE)


def _text_grader(fn: Callable[[str, Any], Grade]) -> Grader:
    def grade(attempt: Any, expected: Any) -> Grade:
        return fn(as_attempt(attempt).answer, expected)

    return grade


def exact(output: str, expected: Any) -> Grade:
    ok = _norm(final_line(output)) == _norm(str(expected)) or _norm(output) == _norm(str(expected))
    return Grade(
        1.0 if ok else 0.0, "correct" if ok else f"expected {expected!r}, got {final_line(output)!r}"
    )


def regex(pattern: str | None) -> Callable[[str, Any], Grade]:
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


def json_fields(fields: list[str] | None) -> Callable[[str, Any], Grade]:
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


def numeric(tolerance: float) -> Callable[[str, Any], Grade]:
    def grade(output: str, expected: Any) -> Grade:
        want = float(expected)
        found = _NUM.findall(final_line(output)) or _NUM.findall(output)
        if not found:
            return Grade(0.0, f"no number in the output; expected {want:g}")
        got = float(found[-1].replace(",", ""))
        ok = abs(got - want) <= tolerance * max(1.0, abs(want))
        return Grade(1.0 if ok else 0.0, "correct" if ok else f"expected {want:g}, got {got:g}")

    return grade


def workspace_file(rel: str, tolerance: float = 1e-6) -> Grader:
    """The workspace file `rel` must hold the expected text (numbers compare within the tolerance)."""

    def grade(attempt: Any, expected: Any) -> Grade:
        ws = as_attempt(attempt).workspace
        path = (ws / rel) if ws is not None else None
        if path is None or not path.is_file():
            return Grade(0.0, f"{rel} was not written; expected it to hold {expected!r}")
        got = path.read_text(encoding="utf-8", errors="replace").strip()
        try:
            ok = abs(float(got.replace(",", "")) - float(expected)) <= tolerance * max(
                1.0, abs(float(expected))
            )
        except (TypeError, ValueError):
            ok = _norm(got) == _norm(str(expected))
        return Grade(
            1.0 if ok else 0.0, f"{rel} correct" if ok else f"{rel}: expected {expected!r}, got {got[:80]!r}"
        )

    return grade


def llm_judge(judge: Model) -> Grader:
    def grade(attempt: Any, expected: Any) -> Grade:
        output = as_attempt(attempt).answer
        prompt = (
            "Does the answer match the reference? Reply PASS or FAIL on the first line, then one sentence why.\n"
            f"Reference: {expected}\nAnswer: {output}"
        )
        reply = judge.complete([{"role": "user", "content": prompt}], [], ModelSettings(temperature=0.0)).text
        ok = reply.strip().upper().startswith("PASS")
        return Grade(1.0 if ok else 0.0, reply.strip()[:300])

    return grade


def _llm(arg: str, ctx: GraderContext) -> Grader:
    if ctx.judge is None:
        raise ValueError("the llm grader needs a judge model (--judge-model)")
    return llm_judge(ctx.judge)


def _code(arg: str, ctx: GraderContext) -> Grader:
    from grove.evolve.code_grader import sandboxed_grader

    file, _, fn = arg.partition(":")
    path = Path(file)
    if not path.is_absolute() and ctx.base is not None:
        path = ctx.base / path
    return sandboxed_grader(path, fn or "grade", allow_unisolated=ctx.allow_unisolated)


register_grader("exact", lambda arg, ctx: _text_grader(exact))
register_grader("regex", lambda arg, ctx: _text_grader(regex(arg or None)))
register_grader(
    "json",
    lambda arg, ctx: _text_grader(json_fields([f.strip() for f in arg.split(",") if f.strip()] or None)),
)
register_grader("numeric", lambda arg, ctx: _text_grader(numeric(float(arg) if arg else 1e-6)))
register_grader("file", lambda arg, ctx: workspace_file(arg or "answer.txt"))
register_grader("llm", _llm)
register_grader("code", _code)


def _plugin_grader(kind: str) -> Factory | None:
    """A grader plugin (entry-point group grove.graders) named `kind`, imported only when a spec names it."""
    from grove.evolve.plugins import plugin_graders

    found = next((c.fn for c in plugin_graders(registered()) if c.plugin.name == kind and c.fn), None)
    return found


def make_grader(
    spec: str | None,
    judge: Model | None = None,
    *,
    base: Path | None = None,
    allow_unisolated: bool = False,
) -> Grader:
    spec = spec or "exact"
    kind, _, arg = spec.partition(":")
    if kind == "python":
        raise ValueError(
            f"grader {spec!r}: python:<module>:<function> is not allowed (a dataset could name exec or os.system); "
            f"use a registered grader ({', '.join(registered())}) or sandboxed code: code:<file.py>:<function>"
        )
    factory = _REGISTRY.get(kind) or _plugin_grader(kind)
    if factory is None:
        raise ValueError(f"unknown grader {spec!r}: use a registered one ({', '.join(registered())})")
    return factory(arg, GraderContext(judge, base, allow_unisolated))
