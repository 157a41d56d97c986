"""Finding skills: $GROVE_HOME/skills, trusted project folders, read-only external dirs; bounded, precedence-ordered."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.skills.frontmatter import SkillFormatError
from grove.skills.skill import Skill, load_skill
from grove.skills.trust import is_trusted

if TYPE_CHECKING:
    from grove.config import Settings

MAX_DEPTH = 3  # source/<category>/<name>/SKILL.md is the deepest layout in use (Hermes Agent's)
MAX_SKILLS_PER_SOURCE = 2000
PROJECT_DIRS = (".grove/skills", ".agents/skills")


@dataclass(frozen=True)
class SkillSource:
    root: Path
    kind: str  # "home" | "project" | "external"


@dataclass
class Skipped:
    path: Path
    reason: str


@dataclass
class Library:
    skills: dict[str, Skill] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> Skill | None:
        return self.skills.get(name)

    def sorted(self) -> list[Skill]:
        return [self.skills[k] for k in sorted(self.skills)]


def home_skills_dir(home: Path) -> Path:
    return Path(home) / "skills"


def external_dirs(settings: Settings) -> list[Path]:
    """Read-only skill folders of other agents, from `skills.external_dirs` in config.yaml."""
    return [Path(d).expanduser() for d in settings.skills.external_dirs if d.strip()]


def sources(settings: Any, workspace: Path | None) -> list[SkillSource]:
    """Highest precedence first."""
    out = [SkillSource(home_skills_dir(settings.home), "home")]
    if workspace is not None and is_trusted(settings.home, workspace):
        out += [SkillSource(Path(workspace).resolve() / d, "project") for d in PROJECT_DIRS]
    out += [SkillSource(d, "external") for d in external_dirs(settings)]
    return out


def iter_skill_dirs(root: Path, max_depth: int = MAX_DEPTH, limit: int = MAX_SKILLS_PER_SOURCE):
    """(folder, category hint) for every folder holding a SKILL.md, depth-first in sorted order, bounded."""
    count = 0

    def walk(folder: Path, depth: int, category: str | None):
        nonlocal count
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if count >= limit:
                return
            if entry.name.startswith(".") or not entry.is_dir():
                continue
            sub = Path(entry.path)
            if (sub / "SKILL.md").is_file():
                count += 1
                yield sub, category
            elif depth < max_depth:
                yield from walk(sub, depth + 1, entry.name if depth == 1 else category)

    if root.is_dir():
        yield from walk(root, 1, None)


def discover(settings: Any, workspace: Path | None = None) -> Library:
    lib = Library()
    for src in sources(settings, workspace):
        for folder, category in iter_skill_dirs(src.root):
            try:
                skill = load_skill(folder, src.kind, category)
            except SkillFormatError as e:
                lib.skipped.append(Skipped(folder, str(e)))
                continue
            existing = lib.skills.get(skill.name)
            if existing is not None:
                lib.warnings.append(
                    f"skill '{skill.name}' in {folder} is shadowed by the one in {existing.path} (higher precedence)"
                )
                continue
            lib.skills[skill.name] = skill
    return lib
