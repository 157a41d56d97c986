"""A plan of the plan-then-act mode: typed steps, the `submit_plan` schema that constrains them, and its parser.

Step kinds: write_skill (a new code skill), call_skill (an existing one, or one written earlier in the same
plan as "new:<name>"), write_result (save the answer to the workspace), done. With the embedded model the schema
becomes a grammar (existing skill names as an enum), so a plan always parses.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from grove.skills.frontmatter import NAME_RE

PLAN_TOOL = "submit_plan"
KINDS = ("write_skill", "call_skill", "write_result", "done")
NAME_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$"
NEW_PATTERN = "^new:[a-z0-9]+(-[a-z0-9]+)*$"
MAX_STEPS = 8


class PlanError(ValueError):
    """A plan that does not hold together; the message goes back to the model to re-plan."""


@dataclass(frozen=True)
class PlanStep:
    kind: str
    skill: str  # the skill written or called; "" for write_result and done
    detail: str  # what the step does, in a sentence (for done: the final answer)

    def render(self) -> str:
        target = f" {self.skill}" if self.skill else ""
        return f"{self.kind}{target}: {self.detail}"


@dataclass(frozen=True)
class Plan:
    steps: tuple[PlanStep, ...]

    def render(self) -> str:
        return "\n".join(f"{i}. {s.render()}" for i, s in enumerate(self.steps, 1))

    def to_json(self) -> str:
        return json.dumps({"steps": [asdict(s) for s in self.steps]}, ensure_ascii=False)


def _variant(kind: str, skill: dict[str, Any] | None) -> dict[str, Any]:
    props: dict[str, Any] = {"kind": {"enum": [kind]}}
    if skill is not None:
        props["skill"] = skill
    props["detail"] = {"type": "string"}
    return {"type": "object", "properties": props, "required": list(props)}


def plan_schema(existing: list[str]) -> dict[str, Any]:
    """The tool schema of `submit_plan`; call_skill may name only `existing` skills or ones this plan writes."""
    callable_ = {"type": "string", "pattern": NEW_PATTERN}
    if existing:
        callable_ = {"anyOf": [{"enum": sorted(existing)}, callable_]}
    variants = [
        _variant("write_skill", {"type": "string", "pattern": NAME_PATTERN}),
        _variant("call_skill", callable_),
        _variant("write_result", None),
        _variant("done", None),
    ]
    return {
        "type": "function",
        "function": {
            "name": PLAN_TOOL,
            "description": "Submit the plan: the remaining steps, in order; the first one is acted on next.",
            "parameters": {
                "type": "object",
                "properties": {
                    "steps": {
                        "type": "array",
                        "items": {"oneOf": variants},
                        "minItems": 1,
                        "maxItems": MAX_STEPS,
                    }
                },
                "required": ["steps"],
            },
        },
    }


def parse_plan(arguments: str | dict[str, Any], existing: list[str]) -> Plan:
    """The plan in `submit_plan`'s arguments; raises PlanError saying what to fix."""
    try:
        data = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError as e:
        raise PlanError(f"the plan is not JSON: {e}") from e
    raw = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(raw, list) or not raw:
        raise PlanError('give {"steps": [...]} with at least one step')
    if len(raw) > MAX_STEPS:
        raise PlanError(f"at most {MAX_STEPS} steps; plan the next ones later")
    steps: list[PlanStep] = []
    written: set[str] = set()
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            raise PlanError(f"step {i} must be an object with kind, skill and detail")
        kind, skill, detail = item.get("kind"), str(item.get("skill") or ""), str(item.get("detail") or "")
        if kind not in KINDS:
            raise PlanError(f"step {i}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if kind == "write_skill":
            if not NAME_RE.match(skill):
                raise PlanError(
                    f"step {i}: write_skill needs a new skill name (lowercase, hyphens), not {skill!r}"
                )
            if skill in existing:
                raise PlanError(f"step {i}: '{skill}' exists already; call it instead of writing it again")
            written.add(skill)
        elif kind == "call_skill":
            name = skill.removeprefix("new:")
            if name not in existing and name not in written:
                known = ", ".join(sorted(existing)) or "none"
                raise PlanError(
                    f"step {i}: no skill '{name}' exists or is written earlier in the plan ({known})"
                )
            skill = name
        else:
            skill = ""
        steps.append(PlanStep(kind, skill, detail))
    return Plan(tuple(steps))
