"""Importing skills written for other agents (Claude Code, Hermes Agent, any Agent Skills client) into $GROVE_HOME.

Each skill is read leniently, scanned (every file, by its kind), and copied whole into a temp folder that is renamed
into place, so a half-imported skill never shows up. Every skill gets a verdict: imported (with warnings), skipped
(unreadable), quarantined (flagged caution: imported only with allow_flagged) or refused (dangerous, always).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from grove.security.skill_scan import scan_skill_files
from grove.skills import usage
from grove.skills.discover import iter_skill_dirs
from grove.skills.frontmatter import (
    MAX_NAME,
    NAME_RE,
    SkillFormatError,
    parse_skill_md,
    quote_colon_values,
    split_frontmatter,
    strict_problems,
)
from grove.skills.history import skill_lock, snapshot
from grove.skills.manage import MAX_SUPPORT_FILE_BYTES
from grove.skills.skill import MAX_SUPPORT_FILES, SUPPORT_DIRS, load_skill
from grove.store.db import Database

_NAME_LINE = re.compile(r"^name:.*$", re.MULTILINE)


@dataclass
class ImportOutcome:
    source: Path
    name: str
    status: str  # "imported" | "skipped" | "quarantined" | "refused"
    reason: str = ""
    warnings: list[str] = field(default_factory=list)


def normalise_name(name: str) -> str:
    """'My_Skill.v2' -> 'my-skill-v2': the closest name the standard allows ('' if nothing is left)."""
    out = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return out[:MAX_NAME].rstrip("-")


def _with_metadata(yaml_text: str, entries: dict[str, str]) -> str | None:
    """Add `entries` under `metadata:` by inserting lines (the rest of the YAML stays as written); None if unsure."""
    lines = yaml_text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    meta_at = next((i for i, ln in enumerate(lines) if re.match(r"^metadata:\s*$", ln)), None)
    if meta_at is None and any(ln.startswith("metadata:") for ln in lines):
        return None  # a flow mapping or a scalar: editing it by hand could break it
    if meta_at is None:
        return "".join(lines) + "metadata:\n" + "".join(f"  {k}: {v}\n" for k, v in entries.items())
    nxt = lines[meta_at + 1] if meta_at + 1 < len(lines) else "  "
    indent = nxt[: len(nxt) - len(nxt.lstrip())] or "  "
    lines[meta_at + 1 : meta_at + 1] = [f"{indent}{k}: {v}\n" for k, v in entries.items()]
    return "".join(lines)


def repair(text: str, name: str, category: str | None) -> tuple[str, list[str]]:
    """Make an imported SKILL.md as valid as can be done safely, editing lines, never re-serialising the YAML:
    quote `key: value: with colon` lines, fix the name, record the category and that it was imported."""
    notes: list[str] = []
    yaml_text, body = split_frontmatter(text)
    try:
        data = yaml.safe_load(yaml_text)
    except yaml.YAMLError:
        yaml_text = quote_colon_values(yaml_text)
        data = yaml.safe_load(yaml_text)  # parse_skill_md succeeded with exactly this retry
        notes.append("quoted values containing ': ' so the frontmatter is valid YAML")
    data = data if isinstance(data, dict) else {}
    if data.get("name") != name:
        if "name" in data:
            notes.append(
                f"renamed {data['name']!r} to {name!r} (the standard allows a-z, 0-9 and single hyphens)"
            )
            yaml_text = _NAME_LINE.sub(f"name: {name}", yaml_text, count=1)
        else:
            notes.append(f"added 'name: {name}' (it had none)")
            yaml_text = f"name: {name}\n" + yaml_text
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    entries = {"grove.created_by": "import"} if "grove.created_by" not in meta else {}
    if category and not any(k in meta for k in ("grove.category", "category")) and "category" not in data:
        entries["grove.category"] = category
    if entries:
        edited = _with_metadata(yaml_text, entries)
        if edited is None:
            notes.append("metadata is not a block mapping; grove's fields were not added")
        else:
            yaml_text = edited
    new_text = f"---\n{yaml_text}---\n{body}"
    try:
        parse_skill_md(new_text, name)
    except SkillFormatError:
        return text, ["could not repair the frontmatter safely; imported as it was"]
    return new_text, notes


def find_skill_dirs(path: Path) -> list[tuple[Path, str | None]]:
    path = Path(path)
    if (path / "SKILL.md").is_file():
        return [(path, None)]
    if path.is_file() and path.name == "SKILL.md":
        return [(path.parent, None)]
    return list(iter_skill_dirs(path))


def _files(folder: Path) -> tuple[list[Path], list[str]]:
    """The regular files to copy, and warnings for what is left out (symlinks, hidden files)."""
    files: list[Path] = []
    warnings: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in list(dirnames):
            if d.startswith(".") or os.path.islink(os.path.join(dirpath, d)):
                warnings.append(
                    f"left out {os.path.relpath(os.path.join(dirpath, d), folder)}/ (hidden or a link)"
                )
                dirnames.remove(d)
        dirnames.sort()
        for fname in sorted(filenames):
            full = Path(dirpath) / fname
            rel = full.relative_to(folder)
            if fname.startswith(".") or full.is_symlink():
                warnings.append(f"left out {rel} (hidden or a link)")
                continue
            files.append(full)
    return files, warnings


def import_one(
    folder: Path,
    category: str | None,
    skills_root: Path,
    db: Database | None,
    force: bool,
    allow_flagged: bool = False,
) -> ImportOutcome:
    try:
        skill = load_skill(folder, "import", category)
    except SkillFormatError as e:
        return ImportOutcome(folder, folder.name, "skipped", str(e))
    name = skill.name
    if not NAME_RE.match(name) or len(name) > MAX_NAME:
        name = normalise_name(name)
        if not name:
            return ImportOutcome(folder, skill.name, "skipped", f"name {skill.name!r} cannot be made valid")
    text, warnings = repair(skill.skill_md.read_text(encoding="utf-8"), name, category)
    warnings += strict_problems(text, name)
    files, left_out = _files(folder)
    warnings += left_out
    if len(files) > MAX_SUPPORT_FILES:
        return ImportOutcome(
            folder, name, "skipped", f"{len(files)} files; at most {MAX_SUPPORT_FILES} are allowed"
        )
    texts: list[tuple[str, str]] = []
    for f in files:
        rel = f.relative_to(folder)
        if f.stat().st_size > MAX_SUPPORT_FILE_BYTES:
            return ImportOutcome(folder, name, "skipped", f"{rel} is larger than 1 MiB")
        if rel.parts[0] not in SUPPORT_DIRS and str(rel) != "SKILL.md":
            warnings.append(f"{rel} is outside {', '.join(SUPPORT_DIRS)} (kept; readable with skill_view)")
        data = text.encode() if str(rel) == "SKILL.md" else f.read_bytes()
        if b"\0" not in data[:8192]:
            texts.append((str(rel), data.decode("utf-8", errors="replace")))
    scan = scan_skill_files(texts, f"import:{name}")
    if scan.blocked:
        why = "dangerous content, refused even with --allow-flagged: " + scan.why("dangerous")
        return ImportOutcome(folder, name, "refused", why)
    if scan.verdict == "caution" and not allow_flagged:
        why = "flagged, not imported (read the reasons; --allow-flagged imports it): " + scan.why("caution")
        return ImportOutcome(folder, name, "quarantined", why)
    warnings += scan.reasons
    skills_root.mkdir(parents=True, exist_ok=True)
    with skill_lock(skills_root, name):
        dest = skills_root / name
        if dest.exists() and not force:
            return ImportOutcome(
                folder, name, "skipped", f"a skill '{name}' exists already (--force replaces it)"
            )
        tmp = Path(tempfile.mkdtemp(dir=skills_root, prefix=".import-"))
        try:
            for f in files:
                rel = f.relative_to(folder)
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, tmp / rel)
            (tmp / "SKILL.md").write_text(text, encoding="utf-8")
            if dest.exists():
                snapshot(skills_root, name, "import", "import", f"replaced by import from {folder}")
                shutil.rmtree(dest)
            os.rename(tmp, dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    usage.record(db, name, "create", detail=f"import from {folder}", actor="import")
    return ImportOutcome(folder, name, "imported", warnings=warnings)


def import_skills(
    path: Path,
    skills_root: Path,
    db: Database | None = None,
    force: bool = False,
    allow_flagged: bool = False,
) -> list[ImportOutcome]:
    """Import one skill folder, or every skill under a folder of skills (flat or by category). Skills the scan
    flags as caution are quarantined unless `allow_flagged`; dangerous ones are always refused."""
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    found = find_skill_dirs(path)
    if not found:
        raise FileNotFoundError(f"no SKILL.md found in {path} (looked {3} folders deep)")
    root = Path(skills_root)
    return [import_one(folder, category, root, db, force, allow_flagged) for folder, category in found]
