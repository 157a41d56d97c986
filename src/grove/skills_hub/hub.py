"""install / update / uninstall / outdated: a SOURCE is fetched into a quarantine folder, then goes through the
skill import pipeline (grove.skills.importer: read, scan, validate, copy; dangerous content is refused whatever
the flags), and each installed skill's origin is recorded in state.db."""

from __future__ import annotations

import difflib
import fcntl
import hashlib
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from grove.skills.history import version_dir, versions
from grove.skills.import_report import ImportOutcome
from grove.skills.importer import import_with_summary
from grove.skills_hub import records
from grove.skills_hub.archive import UnsafeArchive
from grove.skills_hub.fetch import Fetched, FetchError, content_hash, fetch, remote_commit
from grove.skills_hub.source import Source, SourceError, parse_source
from grove.store.db import Database

MAX_DIFF_LINES = 400


class HubError(RuntimeError):
    """A hub action that could not run; the message says why and what to do."""


@dataclass
class InstallResult:
    source: Source
    commit: str | None
    outcomes: list[ImportOutcome]
    notes: list[str] = field(default_factory=list)


@dataclass
class UpdateResult:
    name: str
    status: str  # updated | up to date | refused | quarantined | gone | error
    detail: str = ""
    diff: str = ""
    commit: str | None = None
    version: int | None = None  # the history version holding what was there before


@dataclass
class OutdatedRow:
    name: str
    source: str
    installed: str
    current: str
    status: str  # outdated | up to date | error


@contextmanager
def quarantine(home: Path, source: Source) -> Iterator[Path]:
    """A fetch folder per source, under a lock, emptied before and removed after. Its path is stable, so the
    grove.source the importer writes into SKILL.md is the same at every update (history diffs stay clean)."""
    key = hashlib.sha256(source.spec().encode()).hexdigest()[:16]
    base = Path(home) / "hub" / "quarantine"
    base.mkdir(parents=True, exist_ok=True)
    fd = os.open(base / f"{key}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    folder = base / key
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        shutil.rmtree(folder, ignore_errors=True)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _fetch(source: Source, dest: Path) -> Fetched:
    try:
        return fetch(source, dest)
    except UnsafeArchive as e:
        raise HubError(f"refused {source.location}: {e}") from e
    except (FetchError, OSError) as e:
        raise HubError(str(e)) from e


def install(
    home: Path,
    skills_root: Path,
    db: Database,
    spec: str,
    *,
    force: bool = False,
    allow_flagged: bool = False,
) -> InstallResult:
    """Install every skill SOURCE holds. `force` replaces library skills of the same name (old kept in history);
    it never overrides a refusal: dangerous content is refused, caution needs `allow_flagged`."""
    try:
        source = parse_source(spec)
    except SourceError as e:
        raise HubError(str(e)) from e
    with quarantine(home, source) as q:
        fetched = _fetch(source, q)
        try:
            outcomes, _ = import_with_summary(
                fetched.root,
                skills_root,
                db,
                allow_flagged=allow_flagged,
                on_conflict="replace" if force else "skip",
                origin=source.spec(),
            )
        except FileNotFoundError as e:
            raise HubError(f"{source.spec()}: {e}") from e
        for o in outcomes:
            if o.status == "imported":
                rel = os.path.relpath(o.source, fetched.root)
                records.record(
                    db,
                    o.name,
                    source.spec(),
                    source.kind,
                    source.ref,
                    fetched.commit,
                    "" if rel == "." else rel,
                    content_hash(Path(o.source)),
                )
    return InstallResult(source, fetched.commit, outcomes, fetched.notes)


def _read(path: Path) -> list[str] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return []
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def folder_diff(old: Path, new: Path, limit: int = MAX_DIFF_LINES) -> str:
    """A unified diff of two skill folders (binary files named only), cut at `limit` lines."""

    def files(root: Path) -> set[str]:
        out: set[str] = set()
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            out.update(os.path.relpath(Path(dirpath) / f, root) for f in filenames if not f.startswith("."))
        return out

    lines: list[str] = []
    for rel in sorted(files(old) | files(new)):
        a, b = old / rel, new / rel
        a_lines = _read(a) if a.exists() else []
        b_lines = _read(b) if b.exists() else []
        if a_lines is None or b_lines is None:
            if not a.exists() or not b.exists() or a.read_bytes() != b.read_bytes():
                lines.append(f"binary file {rel} differs\n")
            continue
        lines.extend(
            difflib.unified_diff(
                a_lines,
                b_lines,
                f"a/{rel}" if a.exists() else "/dev/null",
                f"b/{rel}" if b.exists() else "/dev/null",
            )
        )
    if len(lines) > limit:
        lines = [*lines[:limit], f"[... {len(lines) - limit} more diff lines]\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def update(
    home: Path, skills_root: Path, db: Database, name: str | None = None, *, allow_flagged: bool = False
) -> list[UpdateResult]:
    """Re-fetch hub-installed skills (one, or all; each source fetched once); a changed skill is re-imported
    (scanned again), the version before is kept in the skill's history, and the diff between the two returned."""
    rows = records.active(db)
    if name is not None:
        rows = [r for r in rows if r.name == name]
        if not rows:
            raise HubError(
                f"'{name}' was not installed from the hub (`grove skills outdated` lists what was); "
                "install it with `grove skills install SOURCE`"
            )
    results: dict[str, UpdateResult] = {}
    for spec, group in _by_source(rows).items():
        results.update(_update_source(home, skills_root, db, spec, group, allow_flagged))
    return [results[r.name] for r in rows]


def _by_source(rows: list[records.Installed]) -> dict[str, list[records.Installed]]:
    groups: dict[str, list[records.Installed]] = {}
    for r in rows:
        groups.setdefault(r.source, []).append(r)
    return groups


def _folder(fetched: Fetched, row: records.Installed) -> Path:
    return fetched.root / row.path_in_source if row.path_in_source else fetched.root


def _update_source(
    home: Path, skills_root: Path, db: Database, spec: str, rows: list[records.Installed], allow_flagged: bool
) -> dict[str, UpdateResult]:
    out: dict[str, UpdateResult] = {}
    try:
        source = parse_source(spec)
    except SourceError as e:
        return {r.name: UpdateResult(r.name, "error", str(e)) for r in rows}
    with quarantine(home, source) as q:
        try:
            fetched = _fetch(source, q)
        except HubError as e:
            return {r.name: UpdateResult(r.name, "error", str(e)) for r in rows}
        changed: list[tuple[records.Installed, Path, str, set[int]]] = []
        for row in rows:
            folder = _folder(fetched, row)
            if not (folder / "SKILL.md").is_file():
                where = row.path_in_source or "SKILL.md"
                out[row.name] = UpdateResult(row.name, "gone", f"{where} is no longer in the source")
                continue
            new_hash = content_hash(folder)
            if new_hash == row.content_hash:
                if fetched.commit != row.commit_id:  # the repository moved on, this skill did not
                    records.record(
                        db,
                        row.name,
                        row.source,
                        row.kind,
                        row.ref,
                        fetched.commit,
                        row.path_in_source,
                        new_hash,
                    )
                out[row.name] = UpdateResult(row.name, "up to date", commit=fetched.commit)
                continue
            changed.append((row, folder, new_hash, {v.number for v in versions(skills_root, row.name)}))
        if not changed:
            return out
        # imported from the same root as at install (same category, same grove.source), the rest pruned away
        _prune_to(fetched.root, [folder for _, folder, _, _ in changed])
        outcomes, _ = import_with_summary(
            fetched.root,
            skills_root,
            db,
            allow_flagged=allow_flagged,
            on_conflict="replace",
            origin=source.spec(),
        )
        by_folder = {Path(o.source): o for o in outcomes}
        for row, folder, new_hash, before in changed:
            o = by_folder.get(folder)
            if o is None:
                where = row.path_in_source or "SKILL.md"
                out[row.name] = UpdateResult(row.name, "error", f"{where} was not read as a skill")
            elif o.status != "imported":
                out[row.name] = UpdateResult(
                    row.name, o.status, f"{o.reason} (the installed version is kept)"
                )
            elif o.name != row.name:
                why = f"the source now names the skill '{o.name}'; it was installed as that name"
                out[row.name] = UpdateResult(row.name, "error", why)
            else:
                records.record(
                    db, row.name, row.source, row.kind, row.ref, fetched.commit, row.path_in_source, new_hash
                )
                after = [v.number for v in versions(skills_root, row.name) if v.number not in before]
                version = after[-1] if after else None
                old = version_dir(skills_root, row.name, version) if version else None
                diff = folder_diff(old, skills_root / row.name) if old else ""
                out[row.name] = UpdateResult(
                    row.name, "updated", diff=diff, commit=fetched.commit, version=version
                )
    return out


def _prune_to(root: Path, folders: list[Path]) -> None:
    """Leave in `root` only the paths down to `folders` (and what they hold): the source's other skills are not
    this update's business."""
    keep: set[Path] = set()
    for folder in folders:
        parts = folder.relative_to(root).parts
        keep.update(root.joinpath(*parts[:i]) for i in range(1, len(parts) + 1))
    whole = set(folders)

    def walk(here: Path) -> None:
        if here in whole:
            return
        for entry in list(here.iterdir()):
            if entry in keep and entry.is_dir() and not entry.is_symlink():
                walk(entry)
            elif entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()

    walk(root)


def uninstall(skills_root: Path, db: Database, name: str) -> str:
    """Archive a hub-installed skill (recoverable: `grove skills restore NAME`); its record is marked removed."""
    from grove.skills.manage import SkillError, SkillManager

    row = records.get(db, name)
    if row is None or row.removed_at is not None:
        raise HubError(
            f"'{name}' is not installed from the hub; `grove skills archive {name}` removes any skill"
        )
    try:
        message = SkillManager(skills_root, db, actor="user").archive(
            name, f"uninstalled (from {row.source})"
        )
    except SkillError as e:
        raise HubError(str(e)) from e
    records.mark_removed(db, name)
    return str(message)


def outdated(home: Path, db: Database) -> list[OutdatedRow]:
    """Compare each hub-installed skill's recorded commit (git) or content hash with its source's current one.
    Each source is asked once: a git ref with the same commit needs no fetch; otherwise one fetch serves all."""
    rows = records.active(db)
    status: dict[str, OutdatedRow] = {}
    for spec, group in _by_source(rows).items():
        try:
            source = parse_source(spec)
            current = remote_commit(source) if source.kind == "git" else None
            if source.kind == "git" and current is None:
                raise HubError(f"ref '{source.ref}' not found in {source.location}")
            if current is not None and all(r.commit_id == current for r in group):
                for r in group:
                    status[r.name] = OutdatedRow(r.name, spec, current[:12], current[:12], "up to date")
                continue
            with quarantine(home, source) as q:
                fetched = _fetch(source, q)
                for r in group:
                    folder = _folder(fetched, r)
                    # a new commit that leaves this skill alone is not news; a skill gone from the source is
                    same = (folder / "SKILL.md").is_file() and content_hash(folder) == r.content_hash
                    was = (r.commit_id or r.content_hash)[:12]
                    now = (current or "")[:12] or ("same" if same else "changed")
                    status[r.name] = OutdatedRow(r.name, spec, was, now, "up to date" if same else "outdated")
        except (HubError, SourceError, FetchError) as e:
            for r in group:
                status[r.name] = OutdatedRow(
                    r.name, spec, (r.commit_id or r.content_hash)[:12], "?", f"error: {e}"
                )
    return [status[r.name] for r in rows]
