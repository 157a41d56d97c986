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
from grove.skills.folder_read import (
    MAX_INNER_DEPTH,
    NotRegular,
    entries,
    open_below,
    open_folder,
    open_regular,
    read_at_most,
)
from grove.skills.frontmatter import (
    SkillFormatError,
    name_ok,
    parse_skill_md,
    parsed_once,
    strict_problems,
)
from grove.skills.import_report import ImportOutcome, fix_for
from grove.skills.manage import MAX_SUPPORT_FILE_BYTES
from grove.skills.repair import normalise_name, repair
from grove.skills.skill import (
    MAX_SUPPORT_FILES,
    SKILL_FILES,
    SUPPORT_DIRS,
    Skill,
    category_of,
    skill_of_text,
)

# (path inside the folder, what to write, its mode): the bytes read, or their text where they are valid UTF-8
# (its encoding is exactly those bytes, and the same str is what was scanned: pickled once with scan_files).
Copy = tuple[str, "bytes | str", int]
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
    copies: list[Copy]  # the files to copy, as read (SKILL.md is written from `text`)
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


def author_of(folder: Path, fm: dict[str, object], root: Path, meta_json: bytes | str | None = None) -> str:
    """Who wrote it, for `name-<author>`: the frontmatter's author, a registry's _meta.json owner, or the folder
    the skill sits in (collections keep <author>/<skill>/)."""
    meta = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}
    for value in (fm.get("author"), meta.get("author") if isinstance(meta, dict) else None):
        if isinstance(value, str) and normalise_name(value):
            return normalise_name(value)[:24]
    try:
        owner = json.loads(meta_json).get("owner") if meta_json is not None else None
        if isinstance(owner, str) and normalise_name(owner):
            return normalise_name(owner)[:24]
    except (ValueError, AttributeError):
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


def _inside(path: str, base: str) -> str:
    """`path` relative to `base` ('' for base itself): a slice, where os.path.relpath would make both absolute
    and compare them part by part for each of thousands of folders."""
    if path == base:
        return ""
    if path.startswith(base) and path[len(base) : len(base) + 1] == os.sep:
        return path[len(base) + 1 :]
    return os.path.relpath(path, base)


def _open_skill(f: Found, plan: ReadPlan) -> int:
    """The skill folder, opened from the folder the user named without following a link on the way down."""
    base = str(plan.path)
    rel = _inside(f.where, base)
    if rel.startswith(
        ".."
    ):  # not below the named folder (a caller's own list): only its last part is checked
        base, rel = os.path.dirname(f.where), os.path.basename(f.where)
    top = open_folder(base)
    try:
        return open_below(top, rel)
    finally:
        os.close(top)


def _prepare(f: Found, plan: ReadPlan) -> Prepared | ImportOutcome:
    folder = f.folder
    try:
        top = _open_skill(f, plan)
    except NotRegular as e:
        why = f"the skill folder is reached through a link ({e.strerror}); import the folder it points to"
        return verdict(folder, folder.name, "invalid", why)
    except OSError as e:
        return verdict(folder, folder.name, "invalid", f"cannot open the folder: {e.strerror or e}")
    try:
        return _read(f, plan, top)
    finally:
        os.close(top)


def _read(f: Found, plan: ReadPlan, top: int) -> Prepared | ImportOutcome:
    """Everything read from the held folder `top`, each file once: what is scanned is what is copied."""
    folder, limits = f.folder, plan.limits
    notes: list[str] = []
    owner = os.fstat(top).st_uid
    held = SKILL_FILES[0]
    try:
        fd, st, held = _open_skill_file(top, owner)
        try:
            written = read_at_most(fd, limits.max_file_bytes)
        finally:
            os.close(fd)
        if len(written) > limits.max_file_bytes:
            why = (
                f"SKILL.md has {max(st.st_size, len(written))} bytes; at most {limits.max_file_bytes} are"
                f" allowed ({limit_hint('max_file_bytes')})"
            )
            return verdict(folder, folder.name, "over-limit", why)
        # as Path.read_text gives it: universal newlines
        text = written.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        skill = skill_of_text(text, folder, "import", f.category)
    except NotRegular as e:
        why = f"SKILL.md is {e.strerror}: only a regular file is read (put the file itself in the folder)"
        return verdict(folder, folder.name, "invalid", why)
    except UnicodeDecodeError as e:
        return verdict(
            folder, folder.name, "invalid", f"SKILL.md is not UTF-8 text ({e.reason} at byte {e.start})"
        )
    except OSError as e:
        return verdict(folder, folder.name, "invalid", f"cannot read SKILL.md: {e.strerror or e}")
    except SkillFormatError as e:
        headless = (
            without_frontmatter(text, folder, f.category)
            if str(e).startswith("SKILL.md must start")
            else None
        )
        if headless is None:
            return verdict(folder, folder.name, "invalid", str(e))
        skill, text = headless
        notes.append("it had no frontmatter: named after its folder, described by its first paragraph")
    name = skill.name
    if not name_ok(name):  # a Unicode name the standard allows is kept as it is
        name = normalise_name(name)
        if not name:
            return verdict(folder, skill.name, "invalid", f"name {skill.name!r} cannot be made valid")
    tree = _Tree(plan, str(folder), owner, len(written), held)
    try:
        tree.walk(top, "", 0)
    except _Stop as stop:
        return verdict(folder, name, stop.status, stop.why)
    except OSError as e:
        return verdict(folder, name, "invalid", f"cannot read {tree.at}: {e.strerror or e}")
    if tree.count > limits.max_files:
        why = f"{tree.count} files; at most {limits.max_files} are allowed ({limit_hint('max_files')})"
        return verdict(folder, name, "over-limit", why)
    tree.digest.update(text.encode())
    meta = next((data for rel, data, _ in tree.copies if rel == "_meta.json"), None)
    author = author_of(folder, skill.frontmatter, plan.root, meta)
    # Repaired (for the name it will have) once the importer has settled that name: a duplicate never is.
    return Prepared(
        f,
        name,
        skill.name,
        author,
        f.category,
        text,
        tree.copies,
        tree.scan_files,
        notes + tree.warnings,
        tree.digest.hexdigest(),
    )


def _open_skill_file(top: int, owner: int) -> tuple[int, os.stat_result, str]:
    """The folder's skill file, opened: SKILL.md, else skill.md (as the reference finds it)."""
    for name in SKILL_FILES[:-1]:
        try:
            return (*open_regular(top, name, owner), name)
        except FileNotFoundError:
            continue
    return (*open_regular(top, SKILL_FILES[-1], owner), SKILL_FILES[-1])


class _Stop(Exception):
    def __init__(self, status: str, why: str) -> None:
        self.status, self.why = status, why


class _Tree:
    """One walk of a skill folder from its held descriptor: each regular file read once, within the limits;
    links, special files, hidden files and skills of their own left out with a warning."""

    def __init__(self, plan: ReadPlan, base: str, owner: int, skill_md_bytes: int, skill_md: str) -> None:
        self.plan, self.base, self.owner = plan, base, owner
        self.limits = plan.limits
        self.copies: list[Copy] = []
        self.scan_files: list[tuple[str, str]] = []
        self.warnings: list[str] = []
        self.digest = hashlib.sha256()
        self.count = 0
        self.total = 0
        self.at = ""
        self.skill_md_bytes = skill_md_bytes
        self.skill_md = skill_md  # the name it has here (SKILL.md or skill.md); written as SKILL.md

    def walk(self, dir_fd: int, here: str, depth: int) -> None:
        dirs, files, others = entries(dir_fd)
        for fname in others:
            self.warnings.append(f"left out {os.path.join(here, fname)} (hidden or a link)")
        for fname in files:
            rel = os.path.join(here, fname)
            if fname.startswith("."):
                self.warnings.append(f"left out {rel} (hidden or a link)")
                continue
            self.count += 1
            if self.count > self.limits.max_files:
                continue  # only counted: the verdict names how many there are
            self.at = rel
            if rel == self.skill_md:
                self._add(rel, self.skill_md_bytes)
                self.digest.update(b"SKILL.md\0")
                continue
            self._file(dir_fd, fname, rel)
        for d in dirs:
            rel = os.path.join(here, d)
            if os.path.join(self.base, rel) in self.plan.nested:
                self.warnings.append(f"left out {rel}/ (a skill of its own, imported on its own)")
            elif d.startswith("."):
                self.warnings.append(f"left out {rel}/ (hidden or a link)")
            elif depth + 1 >= MAX_INNER_DEPTH:
                self.warnings.append(f"left out {rel}/ (more than {MAX_INNER_DEPTH} folders deep)")
            else:
                try:
                    sub = open_below(dir_fd, d)
                except NotRegular:  # swapped for a link since it was listed
                    self.warnings.append(f"left out {rel}/ (hidden or a link)")
                    continue
                try:
                    self.walk(sub, rel, depth + 1)
                finally:
                    os.close(sub)

    def _add(self, rel: str, size: int) -> None:
        limits = self.limits
        if size > limits.max_file_bytes:
            why = (
                f"{rel} has {size} bytes; at most {limits.max_file_bytes} are allowed"
                f" ({limit_hint('max_file_bytes')})"
            )
            raise _Stop("over-limit", why)
        self.total += size
        if self.total > limits.max_skill_bytes:
            why = f"its files hold more than {limits.max_skill_bytes} bytes in all ({limit_hint('max_skill_bytes')})"
            raise _Stop("over-limit", why)

    def _file(self, dir_fd: int, fname: str, rel: str) -> None:
        try:
            fd, st = open_regular(dir_fd, fname, self.owner)
        except NotRegular as e:
            self.warnings.append(f"left out {rel} ({e.strerror})")
            self.count -= 1
            return
        try:
            if st.st_size > self.limits.max_file_bytes:
                self._add(rel, st.st_size)  # over the limit: not read at all
            data = read_at_most(fd, self.limits.max_file_bytes)
        finally:
            os.close(fd)
        self._add(rel, len(data))  # what was read (it may have changed since the fstat) is what counts
        self.digest.update(rel.encode() + b"\0" + data)
        if rel.split(os.sep, 1)[0] not in SUPPORT_DIRS:
            self.warnings.append(
                f"{rel} is outside {', '.join(SUPPORT_DIRS)} (kept; readable with skill_view)"
            )
        content: bytes | str = data
        if b"\0" not in data[:8192]:
            try:
                content = data.decode("utf-8")
                self.scan_files.append((rel, content))
            except UnicodeDecodeError:
                self.scan_files.append((rel, data.decode("utf-8", errors="replace")))
        self.copies.append((rel, content, st.st_mode))


def without_frontmatter(text: str, folder: Path, category: str | None) -> tuple[Skill, str] | None:
    """A SKILL.md (`text`, as read) with no frontmatter at all (thousands in community collections): its folder
    names it, its first paragraph (or title) describes it, and that frontmatter is written into the copy."""
    body = text.lstrip("\ufeff")
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
