"""Finding skills: $GROVE_HOME/skills, trusted project folders, read-only external dirs; precedence-ordered.

A walk goes down to a configurable depth (default 6) and into the hidden folders other agents keep skills in
(.claude, .agents, .hermes, .codex); there is no cap on the number of skills unless one is set, and a bound that
is reached is always said (Walk.depth_cut, Walk.limit_hit), never silent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.skills.skill import Skill, skill_file_stat
from grove.skills.trust import is_trusted

if TYPE_CHECKING:
    from collections.abc import Iterator

    from grove.config import Settings

MAX_DEPTH = 6  # <repo>/.claude/skills/<category>/<name>/SKILL.md and a collection's owner/repo folders fit
AGENT_DIRS = frozenset({".claude", ".agents", ".hermes", ".codex", ".grove"})  # hidden folders holding skills
NEVER_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})  # never hold skills; can be huge
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


@dataclass
class Found:
    """One folder holding a SKILL.md, as a walk met it (`where` is its path as text: Path objects cost, at 10,000)."""

    where: str
    category: str | None  # the folder right under the root, for root/<category>/<name>/SKILL.md
    depth: int  # folders below the root
    hidden: str = ""  # a hidden folder on the way that is not an agent's (only walks with census=True)
    nested_in: str | None = None  # the skill folder this one sits inside (only walks with nested=True)
    beyond_depth: bool = False  # deeper than max_depth (only walks with census=True)
    stat: os.stat_result | None = field(default=None, compare=False, repr=False)  # of SKILL.md, when walked

    @property
    def folder(self) -> Path:
        return Path(self.where)


@dataclass
class Walk:
    found: list[Found] = field(default_factory=list)
    depth_cut: int = (
        0  # skill folders beyond max_depth (a census counts them all; a library walk those just below)
    )
    limit_hit: bool = False  # stopped at `limit` skills


def walk(
    root: Path,
    max_depth: int = MAX_DEPTH,
    limit: int | None = None,
    nested: bool = False,
    census: bool = False,
) -> Walk:
    """Every folder under `root` holding a SKILL.md, in sorted order.

    nested: also look inside skill folders (a collection can keep sub-skills there; a library never does).
    census: an import's walk: read on past max_depth and into other hidden folders, marking what is found there
    (beyond_depth, hidden) so that every SKILL.md is counted and reported, never imported unasked.
    """
    out = Walk()
    root = Path(root)

    def visit(folder: str, depth: int, category: str | None, hidden: str, inside: str | None) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if limit is not None and len(out.found) >= limit:
                out.limit_hit = True
                return
            name = entry.name
            if name in NEVER_DIRS or not entry.is_dir(follow_symlinks=False):
                continue
            mark = hidden
            if name.startswith(".") and name not in AGENT_DIRS:
                if not census:
                    continue
                mark = mark or name
            sub = entry.path
            here = depth + 1
            beyond = here > max_depth
            held = skill_file_stat(entry.path)
            st = held[1] if held is not None else None
            is_skill = st is not None
            if beyond and not census:
                out.depth_cut += (
                    is_skill  # a skill right below the bound is said; deeper ones are not looked for
                )
                continue
            if is_skill:
                cat = category if here == 2 else None
                out.found.append(Found(sub, cat, here, mark, inside, beyond, st))
                if beyond:
                    out.depth_cut += 1
                if not nested:
                    continue
            visit(sub, here, name if here == 1 else category, mark, sub if is_skill else inside)

    if root.is_dir():
        visit(str(root), 0, None, "", None)
    return out


def iter_skill_dirs(
    root: Path, max_depth: int = MAX_DEPTH, limit: int | None = None
) -> Iterator[tuple[Path, str | None]]:
    """(folder, category hint) for every skill folder under `root` (a library's layout: no nested skills)."""
    for f in walk(root, max_depth, limit).found:
        yield f.folder, f.category


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


def limits(settings: Any) -> tuple[int, int | None]:
    """(max depth, max skills per source) from the settings `skills.max_depth` / `skills.max_skills`."""
    return settings.skills.max_depth, settings.skills.max_skills


def discover(settings: Any, workspace: Path | None = None) -> Library:
    from grove.skills.catalog import database, load_root

    lib = Library()
    max_depth, limit = limits(settings)
    db = database(settings)
    for src in sources(settings, workspace):
        found = walk(src.root, max_depth, limit)
        if found.limit_hit:
            lib.warnings.append(
                f"{src.root}: stopped at {limit} skills (skills.max_skills); the rest are not loaded"
            )
        if found.depth_cut:
            lib.warnings.append(
                f"{src.root}: {found.depth_cut} skill folder(s) deeper than {max_depth} levels were not loaded "
                "(skills.max_depth)"
            )
        for f, skill in load_root(db, src.root, found.found, src.kind):
            if isinstance(skill, str):
                lib.skipped.append(Skipped(f.folder, skill))
                continue
            existing = lib.skills.get(skill.name)
            if existing is not None:
                lib.warnings.append(
                    f"skill '{skill.name}' in {f.folder} is shadowed by the one in {existing.path} "
                    "(higher precedence)"
                )
                continue
            lib.skills[skill.name] = skill
    return lib
