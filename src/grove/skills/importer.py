"""Importing skills written for other agents (Claude Code, Hermes Agent, any Agent Skills client) into $GROVE_HOME.

One pass over a skill folder or a whole collection: walk (every SKILL.md at any depth up to the bound, hidden
agent folders included), read each skill once, settle names (--on-conflict skip | rename | replace), scan every
distinct file once (in parallel, verdicts cached by content hash), then copy each skill through a temp folder that
is renamed into place. Every SKILL.md found gets one verdict (grove.skills.import_report.STATUSES) with a reason
and a way forward; a limit is a parameter, and what it holds back is reported as over-limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from grove.skills import usage
from grove.skills.discover import AGENT_DIRS, MAX_DEPTH, Found, walk
from grove.skills.frontmatter import MAX_NAME, NAME_RE, SkillFormatError, parse_skill_md, strict_problems
from grove.skills.history import skill_lock, snapshot
from grove.skills.import_report import ImportOutcome, ImportSummary, fix_for, summarise
from grove.skills.manage import MAX_SUPPORT_FILE_BYTES
from grove.skills.repair import normalise_name, repair
from grove.skills.skill import MAX_SUPPORT_FILES, SUPPORT_DIRS, Skill, category_of, load_skill
from grove.store.db import Database

__all__ = ["ImportLimits", "ImportOutcome", "find_skill_dirs", "import_skills", "normalise_name", "repair"]

Conflict = Literal["skip", "rename", "replace"]
AGENT_FOLDERS = sorted(AGENT_DIRS)
Progress = Callable[[str, int, int], None]  # (stage, done, total)


MAX_SKILL_BYTES = 16 << 20  # all files of one skill: bounds the scan of a giant skill (seconds, not minutes)


@dataclass(frozen=True)
class ImportLimits:
    """Bounds of one import; each is a setting (skills.<field>) and an option (--max-...), named when hit."""

    max_depth: int = MAX_DEPTH
    max_skills: int | None = None
    max_files: int = MAX_SUPPORT_FILES
    max_file_bytes: int = MAX_SUPPORT_FILE_BYTES
    max_skill_bytes: int = MAX_SKILL_BYTES


def _limit(field_name: str) -> str:
    """How to raise a limit: its setting and its option."""
    return f"setting skills.{field_name}, option --{field_name.replace('_', '-')}"


@dataclass
class _Prepared:
    found: Found
    name: str
    original: str
    author: str
    category: str | None
    text: str  # SKILL.md as written
    files: list[Path]
    scan_files: list[tuple[str, str]]  # text files other than SKILL.md
    warnings: list[str] = field(default_factory=list)
    digest: str = ""
    replace: bool = False


def find_skill_dirs(path: Path, max_depth: int = MAX_DEPTH) -> list[tuple[Path, str | None]]:
    path = Path(path)
    if (path / "SKILL.md").is_file():
        return [(path, None)]
    if path.is_file() and path.name == "SKILL.md":
        return [(path.parent, None)]
    return [(f.folder, f.category) for f in walk(path, max_depth, nested=True).found]


def _files(folder: Path, nested: set[str]) -> tuple[list[Path], list[str]]:
    """The regular files to copy, and warnings for what is left out (links, hidden files, skills of their own)."""
    files: list[Path] = []
    warnings: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in list(dirnames):
            full = os.path.join(dirpath, d)
            rel = os.path.relpath(full, folder)
            if full in nested:
                warnings.append(f"left out {rel}/ (a skill of its own, imported on its own)")
                dirnames.remove(d)
            elif d.startswith(".") or os.path.islink(full):
                warnings.append(f"left out {rel}/ (hidden or a link)")
                dirnames.remove(d)
        dirnames.sort()
        for fname in sorted(filenames):
            full_path = Path(dirpath) / fname
            if fname.startswith(".") or full_path.is_symlink():
                warnings.append(f"left out {full_path.relative_to(folder)} (hidden or a link)")
                continue
            files.append(full_path)
    return files, warnings


def _author(folder: Path, fm: dict[str, object], root: Path) -> str:
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


def _prepare(f: Found, root: Path, nested: set[str], limits: ImportLimits) -> _Prepared | ImportOutcome:
    folder = f.folder
    notes: list[str] = []
    try:
        skill = load_skill(folder, "import", f.category)
        text = skill.skill_md.read_text(encoding="utf-8")
    except (SkillFormatError, OSError, UnicodeDecodeError) as e:
        headless = (
            _without_frontmatter(folder, f.category) if str(e).startswith("SKILL.md must start") else None
        )
        if headless is None:
            return _verdict(folder, folder.name, "invalid", str(e))
        skill, text = headless
        notes.append("it had no frontmatter: named after its folder, described by its first paragraph")
    name = skill.name
    if not NAME_RE.match(name) or len(name) > MAX_NAME:
        name = normalise_name(name)
        if not name:
            return _verdict(folder, skill.name, "invalid", f"name {skill.name!r} cannot be made valid")
    files, warnings = _files(folder, nested)
    warnings = notes + warnings
    if len(files) > limits.max_files:
        why = f"{len(files)} files; at most {limits.max_files} are allowed ({_limit('max_files')})"
        return _verdict(folder, name, "over-limit", why)
    digest = hashlib.sha256()
    total = 0
    scan_files: list[tuple[str, str]] = []
    for path in files:
        rel = str(path.relative_to(folder))
        try:
            size = path.stat().st_size
            if size > limits.max_file_bytes:
                why = (
                    f"{rel} has {size} bytes; at most {limits.max_file_bytes} are allowed"
                    f" ({_limit('max_file_bytes')})"
                )
                return _verdict(folder, name, "over-limit", why)
            total += size
            if total > limits.max_skill_bytes:
                why = (
                    f"its files hold more than {limits.max_skill_bytes} bytes in all"
                    f" ({_limit('max_skill_bytes')})"
                )
                return _verdict(folder, name, "over-limit", why)
            data = b"" if rel == "SKILL.md" else path.read_bytes()
        except OSError as e:
            return _verdict(folder, name, "invalid", f"cannot read {rel}: {e.strerror or e}")
        digest.update(rel.encode() + b"\0" + data)
        if rel == "SKILL.md":
            continue
        if path.relative_to(folder).parts[0] not in SUPPORT_DIRS:
            warnings.append(f"{rel} is outside {', '.join(SUPPORT_DIRS)} (kept; readable with skill_view)")
        if b"\0" not in data[:8192]:
            scan_files.append((rel, data.decode("utf-8", errors="replace")))
    digest.update(text.encode())
    author = _author(folder, skill.frontmatter, root)
    return _Prepared(
        f, name, skill.name, author, f.category, text, files, scan_files, warnings, digest.hexdigest()
    )


def _without_frontmatter(folder: Path, category: str | None) -> tuple[Skill, str] | None:
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


def _verdict(folder: Path, name: str, status: str, reason: str) -> ImportOutcome:
    return ImportOutcome(folder, name, status, reason, fix=fix_for(status, reason))


def _source_of(skills_root: Path, name: str) -> str:
    """The folder a library skill was imported from (its grove.source), '' when unknown."""
    try:
        head = (skills_root / name / "SKILL.md").read_text(encoding="utf-8", errors="replace")[:8192]
    except OSError:
        return ""
    m = re.search(r'^\s+grove\.source: (".*")\s*$', head, re.MULTILINE)
    try:
        return str(json.loads(m.group(1))) if m else ""
    except ValueError:
        return ""


def _origin_label(origin: str | None, root: Path) -> Callable[[Found], str]:
    """What a skill's grove.source says: its folder, or with `origin` (a hub SOURCE fetched into a scratch folder
    under `root`) that SOURCE with the skill's path inside it, so the record names where it really came from."""

    def label(f: Found) -> str:
        if origin is None:
            return f.where
        rel = os.path.relpath(f.where, root)
        return origin if rel == "." else f"{origin}{'/' if '#' in origin else '#'}{rel}"

    return label


def _settle_names(
    prepared: list[_Prepared | ImportOutcome],
    existing: set[str],
    on_conflict: Conflict,
    skills_root: Path,
    source_of: Callable[[Found], str],
) -> None:
    """Give each skill its final name, in walk order; a clash becomes a duplicate verdict (skip) or a new name."""
    first: dict[str, _Prepared] = {}
    by_digest: dict[str, _Prepared] = {}
    for i, p in enumerate(prepared):
        if not isinstance(p, _Prepared):
            continue
        same = by_digest.get(p.digest)
        if same is not None:  # the same files twice are one skill, whatever the policy
            prepared[i] = _verdict(p.found.folder, p.name, "duplicate", f"identical to {same.found.folder}")
            continue
        by_digest[p.digest] = p
        earlier = first.get(p.name)
        base = f"{p.name[: MAX_NAME - len(p.author) - 1]}-{p.author}"
        if on_conflict == "rename":  # imported from this folder before, under its name or renamed: no copy
            before = [
                n
                for n in (p.name, base)
                if n in existing and _source_of(skills_root, n) == source_of(p.found)
            ]
            if before:
                why = f"imported from this folder before, as '{before[0]}'"
                prepared[i] = _verdict(p.found.folder, p.name, "duplicate", why)
                continue
        clash = earlier is not None or (p.name in existing and on_conflict != "replace")
        if clash and on_conflict != "rename":
            where = f"the skill from {earlier.found.folder}" if earlier else "a skill in the library"
            why = f"a skill named '{p.name}' comes first ({where})"
            prepared[i] = _verdict(p.found.folder, p.name, "duplicate", why)
            continue
        if clash:
            new, n = base, 2
            while new in first or new in existing:
                new, n = f"{base[: MAX_NAME - len(str(n)) - 1]}-{n}", n + 1
            p.warnings.append(f"renamed '{p.name}' to '{new}': the name was taken (--on-conflict rename)")
            p.name = new
        p.replace = p.name in existing
        first[p.name] = p


def import_skills(
    path: Path,
    skills_root: Path,
    db: Database | None = None,
    force: bool = False,
    allow_flagged: bool = False,
    on_conflict: Conflict | None = None,
    limits: ImportLimits | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
) -> list[ImportOutcome]:
    """Import one skill folder, or every skill under a folder (any layout); one outcome per SKILL.md found.
    Skills the scan flags as caution are quarantined unless `allow_flagged`; dangerous ones are always refused."""
    return import_with_summary(
        path, skills_root, db, force, allow_flagged, on_conflict, limits, progress, workers
    )[0]


def import_with_summary(
    path: Path,
    skills_root: Path,
    db: Database | None = None,
    force: bool = False,
    allow_flagged: bool = False,
    on_conflict: Conflict | None = None,
    limits: ImportLimits | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    origin: str | None = None,
) -> tuple[list[ImportOutcome], ImportSummary]:
    from grove.skills.scan_cache import scan_many

    started = time.monotonic()
    limits = limits or ImportLimits()
    conflict: Conflict = on_conflict or ("replace" if force else "skip")
    tell = progress or (lambda _stage, _done, _total: None)
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_file() and path.name == "SKILL.md":
        path = path.parent
    if (path / "SKILL.md").is_file():
        found = [Found(str(path), None, 0)]
        root = path.parent
    else:
        found = walk(path, limits.max_depth, nested=True, census=True).found
        root = path
    if not found:
        raise FileNotFoundError(f"no SKILL.md found in {path} (looked {limits.max_depth} folders deep)")
    skills_folders = {f.where for f in found}
    prepared: list[_Prepared | ImportOutcome] = []
    taken = 0
    for i, f in enumerate(found):
        if f.hidden:
            why = f"inside the hidden folder {f.hidden}/ (of hidden folders, only {', '.join(AGENT_FOLDERS)} are read)"
            prepared.append(_verdict(f.folder, f.folder.name, "hidden", why))
        elif f.beyond_depth:
            why = f"{f.depth} folders deep; at most {limits.max_depth} are read ({_limit('max_depth')})"
            prepared.append(_verdict(f.folder, f.folder.name, "over-limit", why))
        elif limits.max_skills is not None and taken >= limits.max_skills:
            why = f"after the first {limits.max_skills} skills ({_limit('max_skills')})"
            prepared.append(_verdict(f.folder, f.folder.name, "over-limit", why))
        else:
            taken += 1
            prepared.append(_prepare(f, root, skills_folders, limits))
        tell("reading", i + 1, len(found))
    root_dir = Path(skills_root)
    existing = {e.name for e in os.scandir(root_dir) if e.is_dir()} if root_dir.is_dir() else set()
    source_of = _origin_label(origin, path)
    _settle_names(prepared, existing, conflict, root_dir, source_of)
    todo = [p for p in prepared if isinstance(p, _Prepared)]
    texts: list[list[tuple[str, str]]] = []
    for p in todo:
        extra = {"grove.source": source_of(p.found)}
        if p.name != p.original:
            extra["grove.original_name"] = p.original
        p.text, notes = repair(p.text, p.name, p.category, extra)
        p.warnings = notes + strict_problems(p.text, p.name) + p.warnings
        texts.append([("SKILL.md", p.text), *p.scan_files])
    distinct_total = len({t for files in texts for t in files})
    scanned = [0]

    def step(n: int) -> None:
        scanned[0] += n
        tell("scanning", scanned[0], distinct_total)

    results, figures = scan_many(db, texts, workers, step) if todo else ([], {})
    verdict_of = {id(p): r for p, r in zip(todo, results, strict=True)}
    outcomes: list[ImportOutcome] = []
    for i, p in enumerate(prepared):
        outcomes.append(
            p if isinstance(p, ImportOutcome) else _install(p, verdict_of[id(p)], root_dir, db, allow_flagged)
        )
        tell("copying", i + 1, len(prepared))
    return outcomes, summarise(outcomes, time.monotonic() - started, figures)


def _install(
    p: _Prepared, scan: object, skills_root: Path, db: Database | None, allow_flagged: bool
) -> ImportOutcome:
    from grove.security.skill_scan import ScanResult

    assert isinstance(scan, ScanResult)
    folder, name = p.found.folder, p.name
    out = ImportOutcome(folder, name, "imported", warnings=p.warnings, author=p.author)
    if p.original != name:
        out.original_name = p.original
    if scan.blocked:
        why = "dangerous content, refused even with --allow-flagged: " + scan.why("dangerous")
        return _with(out, "refused", why)
    if scan.verdict == "caution" and not allow_flagged:
        why = "flagged, not imported (read the reasons; --allow-flagged imports it): " + scan.why("caution")
        return _with(out, "quarantined", why)
    out.warnings = p.warnings + scan.reasons
    skills_root.mkdir(parents=True, exist_ok=True)
    with skill_lock(skills_root, name):
        dest = skills_root / name
        if dest.exists() and not p.replace:
            return _with(out, "duplicate", f"a skill '{name}' appeared in the library meanwhile")
        tmp = Path(tempfile.mkdtemp(dir=skills_root, prefix=".import-"))
        try:
            made = {tmp}
            for f in p.files:
                target = tmp / f.relative_to(folder)
                if target.parent not in made:  # each folder made once, not once per file
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                shutil.copy2(f, target)
            (tmp / "SKILL.md").write_text(p.text, encoding="utf-8")
            if dest.exists():
                snapshot(skills_root, name, "import", "import", f"replaced by import from {folder}")
                shutil.rmtree(dest)
            os.rename(tmp, dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    usage.record(db, name, "create", detail=f"import from {folder}", actor="import")
    return out


def _with(out: ImportOutcome, status: str, reason: str) -> ImportOutcome:
    out.status, out.reason, out.fix = status, reason, fix_for(status, reason)
    return out
