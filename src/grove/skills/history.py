"""Skill versions: a per-skill lock across processes, and a snapshot in skills/.history/ before every write.

Layout: `.history/<name>/<NNNNNN>/` holds the skill folder as it was before change N, with `<NNNNNN>.json` beside it
saying who made change N, why, and when. Numbers are taken under the lock, so concurrent writers never share one.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grove.atomic_files import atomic_write_bytes, atomic_write_text

HISTORY_DIR = ".history"
LOCKS_DIR = ".locks"


@dataclass
class Version:
    number: int
    action: str
    actor: str  # user | agent | import | reviewer | curator | evolution
    reason: str
    at: float
    session_id: str | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@contextmanager
def skill_lock(skills_root: Path, name: str) -> Iterator[None]:
    """Exclusive lock on one skill, across threads and processes (flock on a per-skill lock file)."""
    path = os.path.join(skills_root, LOCKS_DIR, f"{name}.lock")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except FileNotFoundError:  # the library's first lock: its folder is made then, not checked at every lock
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def creation(db: Any, name: str) -> Version | None:
    """The skill's creation as version 0 (from its usage events: who, why, when); None when none is recorded.
    Snapshots are taken before changes, so without this the history would start at the first change."""
    from grove.skills.usage import events

    created = [e for e in events(db, name) if e["kind"] == "create"]
    if not created:
        return None
    e = created[-1]  # a name archived and created again: the current skill's creation
    actor = e["actor"] if e["actor"] in ("reviewer", "curator", "evolution", "user", "import") else "agent"
    return Version(0, "create", actor, e["detail"] or "", e["created_at"], e["session_id"])


def timeline(skills_root: Path, name: str, db: Any = None) -> list[Version]:
    """Creation first (when recorded), then every saved version."""
    first = creation(db, name)
    return ([first] if first else []) + versions(skills_root, name)


def history_dir(skills_root: Path, name: str) -> Path:
    return skills_root / HISTORY_DIR / name


def versions(skills_root: Path, name: str) -> list[Version]:
    folder = history_dir(skills_root, name)
    out: list[Version] = []
    if not folder.is_dir():
        return out
    for meta in sorted(folder.glob("[0-9]*.json")):
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
            out.append(Version(**data))
        except (OSError, ValueError, TypeError):
            continue  # a foreign or damaged entry is skipped, not fatal
    return out


def _next_number(folder: Path) -> int:
    numbers = (
        [int(p.name) for p in folder.iterdir() if p.is_dir() and p.name.isdigit()] if folder.is_dir() else []
    )
    return max(numbers, default=0) + 1


def snapshot(
    skills_root: Path, name: str, action: str, actor: str, reason: str, session_id: str | None = None
) -> Version | None:
    """Keep the skill folder as it is now (call under skill_lock, before changing it). None if it does not exist."""
    src = skills_root / name
    if not (src / "SKILL.md").is_file():
        return None
    folder = history_dir(skills_root, name)
    folder.mkdir(parents=True, exist_ok=True)
    number = _next_number(folder)
    tmp = Path(tempfile.mkdtemp(dir=folder, prefix=".tmp-"))
    try:
        shutil.copytree(src, tmp / "skill", symlinks=True)
        version = Version(number, action, actor, reason, time.time(), session_id)
        atomic_write_text(folder / f"{number:06d}.json", json.dumps(version.as_dict(), ensure_ascii=False))
        os.rename(tmp / "skill", folder / f"{number:06d}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return version


def version_dir(skills_root: Path, name: str, number: int) -> Path:
    return history_dir(skills_root, name) / f"{number:06d}"


def restore_files(snapshot_dir: Path, target: Path) -> None:
    """Make `target` hold exactly the files of `snapshot_dir`, byte for byte, each file written atomically.

    SKILL.md goes last, so a reader never sees a SKILL.md that points at files not restored yet.
    """
    wanted: dict[str, Path] = {}
    for dirpath, _dirs, files in os.walk(snapshot_dir):
        for fname in files:
            full = Path(dirpath) / fname
            wanted[os.path.relpath(full, snapshot_dir)] = full
    for rel in sorted(wanted, key=lambda r: r == "SKILL.md"):
        src = wanted[rel]
        atomic_write_bytes(target / rel, src.read_bytes(), mode=src.stat().st_mode & 0o7777)
    for dirpath, _dirs, files in os.walk(target):
        for fname in files:
            full = Path(dirpath) / fname
            if os.path.relpath(full, target) not in wanted:
                full.unlink()
    for dirpath, _dirs, _files in os.walk(target, topdown=False):  # bottom-up, so emptied parents go too
        folder = Path(dirpath)
        if folder != target and not any(folder.iterdir()):
            folder.rmdir()
