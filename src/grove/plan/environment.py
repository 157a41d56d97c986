"""What the planner perceives before each step: the goal, the workspace's files, the last result, the skills."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.skills.code_meta import is_code_skill, signature_of

MAX_FILES = 40
MAX_LAST_CHARS = 2000


@dataclass
class Environment:
    goal: str
    files: list[str] = field(default_factory=list)  # "name (size)"
    last_result: str = ""
    code_skills: dict[str, str] = field(default_factory=dict)  # name -> "signature — description"
    other_skills: list[str] = field(default_factory=list)
    round: int = 1

    def render(self) -> str:
        files = "\n".join(f"- {f}" for f in self.files) or "(empty)"
        skills = "\n".join(f"- {n}: {s}" for n, s in sorted(self.code_skills.items())) or "(none yet)"
        other = (
            f"\nOther skills (instructions, not callable): {', '.join(self.other_skills)}"
            if self.other_skills
            else ""
        )
        last = self.last_result.strip() or "(nothing yet)"
        return (
            f"[grove plan] Round {self.round}.\nGoal: {self.goal}\n\nWorkspace files:\n{files}\n\n"
            f"Last result:\n{last}\n\nCode skills (call with skill_run):\n{skills}{other}\n\n"
            f"Plan the remaining steps with {PLAN_HINT}"
        )


PLAN_HINT = (
    "submit_plan. Reuse a code skill whose signature fits (call_skill) before writing a new one "
    "(write_skill, then call_skill 'new:<name>'); write_result saves what the goal asks for; "
    "done (detail = the final answer) once the goal holds."
)


def _files(workspace: Path) -> list[str]:
    out: list[str] = []
    for entry in sorted(os.scandir(workspace), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            out.append(f"{entry.name}/")
        elif entry.is_file(follow_symlinks=False):
            out.append(f"{entry.name} ({entry.stat().st_size} bytes)")
        if len(out) >= MAX_FILES:
            out.append("...")
            break
    return out


def perceive(goal: str, workspace: Path, last_result: str, skills: list[Any], round_: int = 1) -> Environment:
    """The environment now; `skills` are loaded Skill objects (code skills show their signature)."""
    code: dict[str, str] = {}
    other: list[str] = []
    for s in skills:
        if is_code_skill(s.metadata):
            code[s.name] = f"{signature_of(s.metadata)} — {s.description}"
        else:
            other.append(s.name)
    last = last_result if len(last_result) <= MAX_LAST_CHARS else last_result[:MAX_LAST_CHARS] + " [...]"
    return Environment(goal, _files(workspace), last, code, sorted(other), round_)
