"""Probes a prose skill is held to: the task that taught it, with checks on files or the answer. When the reviewer
creates or rewrites a SKILL.md, the change is replayed first: each probe runs with the new SKILL.md (and, as a
baseline, without it) on the same model, and the change is written only when every probe passes with it and none
that passed without it fails. Probes are kept per skill under $GROVE_HOME/probes/<skill>.json, so later patches
are held to them too."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from grove.atomic_files import atomic_write_text
from grove.learning.checks import Check


class Probe(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: Annotated[
        str, Field(min_length=1)
    ]  # what a user asks, as the session that taught the skill was asked
    files: dict[str, str] = Field(default_factory=dict)  # the workspace the task starts from
    checks: Annotated[list[Check], Field(min_length=1)]


@dataclass
class ProbeRun:
    passed: bool
    detail: str  # the failed checks, or "ok"
    model_calls: int = 0


# (skill name, SKILL.md text or None for "without the skill", probe) -> what the replay did
ProbeRunner = Callable[[str, "str | None", Probe], ProbeRun]

PROBE_ASK = (
    "Prose skills are held to probes: before you create, edit or patch a SKILL.md, call skill_probe(name, task, "
    "checks, files) with the task that taught it (as the user asked it, with the files it starts from) and "
    "checks a correct result passes (a file equals / contains / regex, or output_regex on the answer). The change "
    "is written only when the probe passes with it."
)


def probes_path(home: Path, name: str) -> Path:
    return home / "probes" / f"{name}.json"


_PROBES = TypeAdapter(list[Probe])


def load_probes(home: Path, name: str) -> list[Probe]:
    path = probes_path(home, name)
    if not path.is_file():
        return []
    try:
        return _PROBES.validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return []  # a broken file holds the skill to nothing rather than blocking every change


def save_probes(home: Path, name: str, probes: list[Probe]) -> None:
    path = probes_path(home, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps([p.model_dump(exclude_defaults=True) for p in probes], indent=1))


def parse_probe(task: str, checks: list[dict], files: dict[str, str] | None) -> Probe:
    """A probe from the reviewer's call; ValueError says what is wrong in a line."""
    try:
        return Probe.model_validate({"task": task, "files": files or {}, "checks": checks})
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(
            f"{where}: {first['msg']} (a check is {{'file': ..., 'equals'|'contains'|'regex': ...}} or "
            "{'output_regex': ...})"
        ) from e


@dataclass
class Verdict:
    keep: bool
    lines: list[str] = field(default_factory=list)
    model_calls: int = 0
    replays: int = 0

    def text(self) -> str:
        return "; ".join(self.lines)


def judge(
    name: str, candidate: str, before: str | None, probes: list[Probe], runner: ProbeRunner, budget: int
) -> Verdict:
    """Replay `probes` with `candidate` as the skill's SKILL.md: keep when every one passes with it. Each that
    passes is replayed with `before` (None: no such skill) as the baseline, reported with the verdict: one that
    passes without the change too shows the change is not what made it pass. At most `budget` replays."""
    verdict = Verdict(True)
    for i, probe in enumerate(probes, 1):
        if budget <= 0:
            verdict.keep = False  # not shown to pass: not kept
            verdict.lines.append(f"probe {i}: not replayed (the review's probe budget is spent)")
            continue
        with_it = runner(name, candidate, probe)
        budget -= 1
        verdict.replays += 1
        verdict.model_calls += with_it.model_calls
        if not with_it.passed:
            verdict.keep = False
            verdict.lines.append(f"probe {i} fails with the change: {with_it.detail}")
            continue
        if budget <= 0:
            verdict.lines.append(f"probe {i} passes with the change (no budget left for the baseline)")
            continue
        without = runner(name, before, probe)
        budget -= 1
        verdict.replays += 1
        verdict.model_calls += without.model_calls
        base = "passes without it too" if without.passed else f"fails without it: {without.detail}"
        verdict.lines.append(f"probe {i} passes with the change, {base}")
    if not probes:
        verdict.keep = False
        verdict.lines.append("no probe: call skill_probe first")
    return verdict
