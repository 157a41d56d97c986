"""One loaded skill: its folder, parsed SKILL.md, where it came from, and its grove metadata."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.skills.frontmatter import ParsedSkillMd, SkillFormatError, parse_skill_md

SUPPORT_DIRS = ("scripts", "references", "templates", "assets")
MAX_SUPPORT_FILES = 200
DEFAULT_CATEGORY = "general"
# A skill's file, as the Agent Skills reference (skills-ref) finds it: SKILL.md, else skill.md. grove writes SKILL.md.
SKILL_FILES = ("SKILL.md", "skill.md")


def skill_file_stat(folder: str) -> tuple[str, os.stat_result] | None:
    """(name, stat) of the folder's skill file (a regular file, links followed), None when it has none."""
    for name in SKILL_FILES:
        try:
            st = os.stat(os.path.join(folder, name))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            return name, st
    return None


def skill_file(folder: Path) -> Path:
    """The folder's skill file; SKILL.md (which may not exist) when it has neither."""
    found = skill_file_stat(str(folder))
    return folder / (found[0] if found else SKILL_FILES[0])


@dataclass
class Skill:
    name: str
    description: str
    path: Path  # the skill's folder
    source: str  # "home", "project", or "external"
    frontmatter: dict[str, Any]
    body_text: str | None = field(default=None, repr=False)  # None: read from SKILL.md when first asked for
    category: str = DEFAULT_CATEGORY
    warnings: list[str] = field(default_factory=list)

    @property
    def body(self) -> str:
        """The instructions below the frontmatter (a skill loaded from the catalog reads them only when asked)."""
        if self.body_text is None:
            try:
                self.body_text = parse_skill_md(
                    self.skill_md.read_text(encoding="utf-8"), self.path.name
                ).body
            except (OSError, UnicodeDecodeError, SkillFormatError):
                self.body_text = ""
        return self.body_text

    @property
    def skill_md(self) -> Path:
        return skill_file(self.path)

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.frontmatter.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def pinned(self) -> bool:
        return str(self.metadata.get("grove.pinned", "")).lower() in ("true", "yes", "1")

    @property
    def created_by(self) -> str:
        return str(self.metadata.get("grove.created_by", "user"))

    @property
    def writable(self) -> bool:
        return self.source == "home"

    def supporting_files(self) -> list[str]:
        """Relative paths of the skill's other files, sorted and bounded; hidden files and symlinks left out."""
        found: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.path):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(dirpath, d))
            )
            for fname in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, fname), self.path)
                if rel == "SKILL.md" or fname.startswith(".") or os.path.islink(os.path.join(dirpath, fname)):
                    continue
                found.append(rel)
                if len(found) >= MAX_SUPPORT_FILES:
                    return found
        return found

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "category": self.category,
            "source": self.source,
            "path": str(self.path),
            "pinned": self.pinned,
            "created_by": self.created_by,
            "imported_from": str(self.metadata.get("grove.source", "")) or None,
            "warnings": list(self.warnings),
        }


def category_of(fm: dict[str, Any], fallback: str | None) -> str:
    raw_meta = fm.get("metadata")
    meta = raw_meta if isinstance(raw_meta, dict) else {}
    for value in (meta.get("grove.category"), meta.get("category"), fm.get("category"), fallback):
        if isinstance(value, str) and value.strip():
            return value.strip().lower().replace(" ", "-")
    return DEFAULT_CATEGORY


_CACHE: dict[tuple[str, str, str | None], tuple[tuple[int, int, int], Skill]] = {}
_CACHE_MAX = 10_000


def load_skill(folder: Path, source: str, category_hint: str | None = None) -> Skill:
    """Read `folder/SKILL.md` leniently; raises SkillFormatError (with the reason) when it cannot be loaded.

    Parsed skills are cached by the file's inode, mtime and size, so a tool call on a large library re-reads nothing.
    """
    try:
        st = skill_file(folder).stat()
    except OSError as e:
        raise SkillFormatError(f"cannot read SKILL.md: {e.strerror or e}") from e
    key = (str(folder), source, category_hint)
    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)  # atomic writes make a new inode, whatever the clock says
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    skill = _read_skill(folder, source, category_hint)
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = (stamp, skill)
    return skill


def _read_skill(folder: Path, source: str, category_hint: str | None) -> Skill:
    try:
        text = skill_file(folder).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise SkillFormatError(f"SKILL.md is not UTF-8 text ({e.reason} at byte {e.start})") from e
    except OSError as e:
        raise SkillFormatError(f"cannot read SKILL.md: {e.strerror or e}") from e
    return skill_of_text(text, folder, source, category_hint)


def skill_of_text(text: str, folder: Path, source: str, category_hint: str | None = None) -> Skill:
    """The skill a SKILL.md text read from `folder` makes (SkillFormatError when it cannot be loaded)."""
    parsed: ParsedSkillMd = parse_skill_md(text, folder.name)
    fm = parsed.frontmatter
    return Skill(
        name=str(fm["name"]),
        description=" ".join(str(fm["description"]).split()),
        path=folder,
        source=source,
        frontmatter=fm,
        body_text=parsed.body,
        category=category_of(fm, category_hint),
        warnings=parsed.warnings,
    )
