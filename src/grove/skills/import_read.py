"""Reading one skill folder for an import: its SKILL.md (repaired for its name), its files and their texts, or a
verdict saying why it cannot be imported. Pure and picklable, so an import reads its folders in worker processes.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.skills.discover import MAX_DEPTH, Found
from grove.skills.frontmatter import (
    MAX_NAME,
    NAME_RE,
    SkillFormatError,
    parse_skill_md,
    parsed_once,
    strict_problems,
)
from grove.skills.import_report import ImportOutcome, fix_for
from grove.skills.manage import MAX_SUPPORT_FILE_BYTES
from grove.skills.repair import normalise_name, repair
from grove.skills.skill import MAX_SUPPORT_FILES, SUPPORT_DIRS, Skill, category_of, skill_of_text

MAX_SKILL_BYTES = 16 << 20  # all files of one skill: bounds the scan of a giant skill (seconds, not minutes)


@dataclass(frozen=True)
class ImportLimits:
    """Bounds of one import; each is a setting (skills.<field>) and an option (--max-...), named when hit."""

    max_depth: int = MAX_DEPTH
    max_skills: int | None = None
    max_files: int = MAX_SUPPORT_FILES
    max_file_bytes: int = MAX_SUPPORT_FILE_BYTES
    max_skill_bytes: int = MAX_SKILL_BYTES


@dataclass(frozen=True)
class ReadPlan:
    """What reading any one folder of an import needs to know about the whole import."""

    root: Path  # the import's root: a skill's author may be the folder it sits in below it
    nested: frozenset[str]  # every skill folder found: one inside another is left out of the outer copy
    limits: ImportLimits
    path: Path  # the folder the user named
    origin: str | None = None  # a hub SOURCE fetched into `path`, named in grove.source instead of the folder

    def source_of(self, f: Found) -> str:
        """What a skill's grove.source says: its folder, or the hub SOURCE with the skill's path inside it."""
        if self.origin is None:
            return f.where
        rel = os.path.relpath(f.where, self.path)
        return self.origin if rel == "." else f"{self.origin}{'/' if '#' in self.origin else '#'}{rel}"


@dataclass
class Prepared:
    found: Found
    name: str
    original: str
    author: str
    category: str | None
    raw: str  # SKILL.md as written
    files: list[str]  # paths inside the folder, to copy
    scan_files: list[tuple[str, str]]  # text files other than SKILL.md
    warnings: list[str] = field(default_factory=list)  # the folder's: no frontmatter, files left out, renamed
    digest: str = ""
    replace: bool = False
    text: str = ""  # SKILL.md as it will be written: repaired for `name`, with grove's metadata
    checks: list[str] = field(default_factory=list)  # what repairing said, then what is still not valid
    parsed: dict[str, Any] = field(default_factory=dict)  # YAML texts read so far, with their data

    def repair_job(self, source: str) -> RepairJob:
        """What repairing SKILL.md for the skill's settled name needs (the YAML already parsed included)."""
        extra = {"grove.source": source}
        if self.name != self.original:
            extra["grove.original_name"] = self.original
        return RepairJob(self.raw, self.name, self.category, extra, self.parsed)

    @property
    def all_warnings(self) -> list[str]:
        return self.checks + self.warnings


@dataclass(frozen=True)
class RepairJob:
    raw: str
    name: str
    category: str | None
    extra: dict[str, str]
    parsed: dict[str, Any]


def repaired(job: RepairJob) -> tuple[str, list[str]]:
    """SKILL.md repaired for its name, with what repairing said and what is still not valid (in a worker, or in the
    importer's process). The YAML its reader parsed is not parsed again: only the repaired YAML is new."""
    with parsed_once(job.parsed):
        text, notes = repair(job.raw, job.name, job.category, job.extra)
        return text, notes + strict_problems(text, job.name)


def limit_hint(field_name: str) -> str:
    """How to raise a limit: its setting and its option."""
    return f"setting skills.{field_name}, option --{field_name.replace('_', '-')}"


def verdict(folder: Path, name: str, status: str, reason: str) -> ImportOutcome:
    return ImportOutcome(folder, name, status, reason, fix=fix_for(status, reason))


def files_of(folder: Path, nested: frozenset[str] | set[str]) -> tuple[list[str], list[str]]:
    """The regular files to copy (paths inside `folder`), and warnings for what is left out (links, hidden files,
    skills of their own)."""
    files: list[str] = []
    warnings: list[str] = []
    base = str(folder)
    for dirpath, dirnames, filenames in os.walk(base):
        here = _inside(dirpath, base)
        for d in list(dirnames):
            full = os.path.join(dirpath, d)
            rel = os.path.join(here, d)
            if full in nested:
                warnings.append(f"left out {rel}/ (a skill of its own, imported on its own)")
                dirnames.remove(d)
            elif d.startswith(".") or os.path.islink(full):
                warnings.append(f"left out {rel}/ (hidden or a link)")
                dirnames.remove(d)
        dirnames.sort()
        for fname in sorted(filenames):
            full_path = os.path.join(dirpath, fname)
            if fname.startswith(".") or os.path.islink(full_path):
                warnings.append(f"left out {os.path.join(here, fname)} (hidden or a link)")
                continue
            files.append(os.path.join(here, fname))
    return files, warnings


def _inside(path: str, base: str) -> str:
    """`path` relative to `base` ('' for base itself), for the paths os.walk(base) gives: a slice, where
    os.path.relpath would make both absolute and compare them part by part for each of thousands of files."""
    if path == base:
        return ""
    if path.startswith(base) and path[len(base) : len(base) + 1] == os.sep:
        return path[len(base) + 1 :]
    return os.path.relpath(path, base)


def author_of(folder: Path, fm: dict[str, object], root: Path) -> str:
    """Who wrote it, for `name-<author>`: the frontmatter's author, a registry's _meta.json owner, or the folder
    the skill sits in (collections keep <author>/<skill>/)."""
    meta = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}
    for value in (fm.get("author"), meta.get("author") if isinstance(meta, dict) else None):
        if isinstance(value, str) and normalise_name(value):
            return normalise_name(value)[:24]
    try:
        owner = json.loads((folder / "_meta.json").read_text(encoding="utf-8")).get("owner")
        if isinstance(owner, str) and normalise_name(owner):
            return normalise_name(owner)[:24]
    except (OSError, ValueError, AttributeError):
        pass
    parent = folder.parent
    if parent != root and parent.name not in ("skills", "") and normalise_name(parent.name):
        return normalise_name(parent.name)[:24]
    return hashlib.sha256(str(folder).encode()).hexdigest()[:6]


def prepare(f: Found, plan: ReadPlan) -> Prepared | ImportOutcome:
    """One folder read for import: its files within the limits and its SKILL.md, parsed (repaired later, for the
    name the importer settles)."""
    with parsed_once() as parsed:
        out = _prepare(f, plan)
        if isinstance(out, Prepared):
            out.parsed = parsed  # repairing it reads the same YAML (see repaired)
        return out


def _prepare(f: Found, plan: ReadPlan) -> Prepared | ImportOutcome:
    folder, limits = f.folder, plan.limits
    notes: list[str] = []
    try:
        with open(os.path.join(folder, "SKILL.md"), "rb") as fh:
            written = fh.read()
        # as Path.read_text gives it: universal newlines
        text = written.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        skill = skill_of_text(text, folder, "import", f.category)
    except UnicodeDecodeError as e:
        return verdict(
            folder, folder.name, "invalid", f"SKILL.md is not UTF-8 text ({e.reason} at byte {e.start})"
        )
    except OSError as e:
        return verdict(folder, folder.name, "invalid", f"cannot read SKILL.md: {e.strerror or e}")
    except SkillFormatError as e:
        headless = (
            without_frontmatter(folder, f.category) if str(e).startswith("SKILL.md must start") else None
        )
        if headless is None:
            return verdict(folder, folder.name, "invalid", str(e))
        skill, text = headless
        notes.append("it had no frontmatter: named after its folder, described by its first paragraph")
    name = skill.name
    if not NAME_RE.match(name) or len(name) > MAX_NAME:
        name = normalise_name(name)
        if not name:
            return verdict(folder, skill.name, "invalid", f"name {skill.name!r} cannot be made valid")
    files, warnings = files_of(folder, plan.nested)
    warnings = notes + warnings
    if len(files) > limits.max_files:
        why = f"{len(files)} files; at most {limits.max_files} are allowed ({limit_hint('max_files')})"
        return verdict(folder, name, "over-limit", why)
    digest = hashlib.sha256()
    total = 0
    scan_files: list[tuple[str, str]] = []
    base = str(folder)
    for rel in files:
        path = os.path.join(base, rel)
        try:
            size = os.stat(path).st_size
            if size > limits.max_file_bytes:
                why = (
                    f"{rel} has {size} bytes; at most {limits.max_file_bytes} are allowed"
                    f" ({limit_hint('max_file_bytes')})"
                )
                return verdict(folder, name, "over-limit", why)
            total += size
            if total > limits.max_skill_bytes:
                why = (
                    f"its files hold more than {limits.max_skill_bytes} bytes in all"
                    f" ({limit_hint('max_skill_bytes')})"
                )
                return verdict(folder, name, "over-limit", why)
            if rel == "SKILL.md":
                data = b""
            else:
                with open(path, "rb") as fh:
                    data = fh.read()
        except OSError as e:
            return verdict(folder, name, "invalid", f"cannot read {rel}: {e.strerror or e}")
        digest.update(rel.encode() + b"\0" + data)
        if rel == "SKILL.md":
            continue
        if rel.split(os.sep, 1)[0] not in SUPPORT_DIRS:
            warnings.append(f"{rel} is outside {', '.join(SUPPORT_DIRS)} (kept; readable with skill_view)")
        if b"\0" not in data[:8192]:
            scan_files.append((rel, data.decode("utf-8", errors="replace")))
    digest.update(text.encode())
    author = author_of(folder, skill.frontmatter, plan.root)
    # Repaired (for the name it will have) once the importer has settled that name: a duplicate never is.
    return Prepared(
        f, name, skill.name, author, f.category, text, files, scan_files, warnings, digest.hexdigest()
    )


def without_frontmatter(folder: Path, category: str | None) -> tuple[Skill, str] | None:
    """A SKILL.md with no frontmatter at all (thousands in community collections): its folder names it, its first
    paragraph (or title) describes it, and that frontmatter is written into the imported copy."""
    try:
        body = (folder / "SKILL.md").read_text(encoding="utf-8").lstrip("\ufeff")
    except (OSError, UnicodeDecodeError):
        return None
    title, para = "", []
    for line in body.splitlines():
        item = line.strip()
        if item.startswith("#") and not para:
            title = title or item.lstrip("#").strip()
        elif item and not item.startswith(("```", "|", "<", "!", "---")):
            para.append(item)
        elif para:
            break
    name = normalise_name(folder.name)
    description = (" ".join(para) or title)[:1000].strip()
    if not name or not description:
        return None
    text = f"---\nname: {name}\ndescription: {json.dumps(description, ensure_ascii=False)}\n---\n\n{body}"
    try:
        parsed = parse_skill_md(text, name)
    except SkillFormatError:
        return None
    fm = parsed.frontmatter
    skill = Skill(name, str(fm["description"]), folder, "import", fm, parsed.body, category_of(fm, category))
    return skill, text


# The plan of the import a worker process reads for (set by its initializer: sent once, not with every folder).
_PLAN: ReadPlan | None = None


def start_worker(plan: ReadPlan) -> None:
    global _PLAN
    _PLAN = plan


def prepare_in_worker(f: Found) -> Prepared | ImportOutcome:
    assert _PLAN is not None, "start_worker(plan) runs first"
    return prepare(f, _PLAN)
