"""Importing skills written for other agents (Claude Code, Hermes Agent, any Agent Skills client) into $GROVE_HOME.

One pass over a skill folder or a whole collection: walk (every SKILL.md at any depth up to the bound, hidden
agent folders included), read each skill once (import_read; in worker processes for a collection), settle names
(--on-conflict skip | rename | replace), scan every distinct file once (the same workers; verdicts cached by
content hash), and copy each skill, as soon as its files' verdicts are in, through a temp folder renamed into
place. Each file is read once, without following links, and what is copied is the bytes that were scanned
(grove.skills.folder_read). Every SKILL.md found gets one verdict (grove.skills.import_report.STATUSES) with a
reason and a way forward; a limit is a parameter, and what it holds back is reported as over-limit.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Literal

from grove.skills import usage
from grove.skills.discover import AGENT_DIRS, MAX_DEPTH, Found, walk
from grove.skills.folder_read import write_new
from grove.skills.frontmatter import MAX_NAME
from grove.skills.history import skill_lock, snapshot
from grove.skills.import_read import (
    MAX_SKILL_BYTES,
    ImportLimits,
    Prepared,
    ReadPlan,
    limit_hint,
    prepare,
    prepare_in_worker,
    repaired,
    start_worker,
    verdict,
)
from grove.skills.import_report import ImportOutcome, ImportSummary, fix_for, summarise
from grove.skills.repair import normalise_name, repair
from grove.skills.skill import SKILL_FILES, skill_file_stat
from grove.store.db import Database

__all__ = [
    "MAX_SKILL_BYTES",
    "ImportLimits",
    "ImportOutcome",
    "find_skill_dirs",
    "import_skills",
    "normalise_name",
    "repair",
]

Conflict = Literal["skip", "rename", "replace"]
AGENT_FOLDERS = sorted(AGENT_DIRS)
Progress = Callable[[str, int, int], None]  # (stage, done, total)
# Below this many folders an import reads and scans in its own process: starting workers costs more.
POOL_FROM = 32
# Skills copied between two writes of their creation events (one transaction each).
RECORD_EVERY = 500


def find_skill_dirs(path: Path, max_depth: int = MAX_DEPTH) -> list[tuple[Path, str | None]]:
    path = Path(path)
    if skill_file_stat(str(path)) is not None:
        return [(path, None)]
    if path.is_file() and path.name in SKILL_FILES:
        return [(path.parent, None)]
    return [(f.folder, f.category) for f in walk(path, max_depth, nested=True).found]


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


class _Names:
    """Each skill's final name, given in walk order as the reads come in: a clash becomes a duplicate verdict
    (skip) or a new name (rename). Names settle before any SKILL.md is repaired, so a duplicate never is."""

    def __init__(
        self, existing: set[str], on_conflict: Conflict, skills_root: Path, source_of: Callable[[Found], str]
    ) -> None:
        self.existing = existing
        self.on_conflict = on_conflict
        self.skills_root = skills_root
        self.source_of = source_of
        self.first: dict[str, Prepared] = {}
        self.by_digest: dict[str, Prepared] = {}

    def settle(self, p: Prepared) -> Prepared | ImportOutcome:
        existing, first = self.existing, self.first
        same = self.by_digest.get(p.digest)
        if same is not None:  # the same files twice are one skill, whatever the policy
            return verdict(p.found.folder, p.name, "duplicate", f"identical to {same.found.folder}")
        self.by_digest[p.digest] = p
        earlier = first.get(p.name)
        base = f"{p.name[: MAX_NAME - len(p.author) - 1]}-{p.author}"
        # Renaming: imported from this folder before, under its name or renamed, is no new copy.
        if self.on_conflict == "rename":
            before = [
                n
                for n in (p.name, base)
                if n in existing and _source_of(self.skills_root, n) == self.source_of(p.found)
            ]
            if before:
                why = f"imported from this folder before, as '{before[0]}'"
                return verdict(p.found.folder, p.name, "duplicate", why)
        clash = earlier is not None or (p.name in existing and self.on_conflict != "replace")
        if clash and self.on_conflict != "rename":
            where = f"the skill from {earlier.found.folder}" if earlier else "a skill in the library"
            why = f"a skill named '{p.name}' comes first ({where})"
            return verdict(p.found.folder, p.name, "duplicate", why)
        if clash:
            new, n = base, 2
            while new in first or new in existing:
                new, n = f"{base[: MAX_NAME - len(str(n)) - 1]}-{n}", n + 1
            p.warnings.append(f"renamed '{p.name}' to '{new}': the name was taken (--on-conflict rename)")
            p.name = new
        p.replace = p.name in existing
        first[p.name] = p
        return p


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


def _worker_start(plan: ReadPlan) -> None:
    from grove.skills.scan_cache import worker_start

    start_worker(plan)
    worker_start()


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
    started = time.monotonic()
    limits = limits or ImportLimits()
    conflict: Conflict = on_conflict or ("replace" if force else "skip")
    tell = progress or (lambda _stage, _done, _total: None)
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_file() and path.name in SKILL_FILES:
        path = path.parent
    if skill_file_stat(str(path)) is not None:
        found = [Found(str(path), None, 0)]
        root = path.parent
    else:
        found = walk(path, limits.max_depth, nested=True, census=True).found
        root = path
    if not found:
        raise FileNotFoundError(f"no SKILL.md found in {path} (looked {limits.max_depth} folders deep)")
    plan = ReadPlan(root, frozenset(f.where for f in found), limits, path, origin)
    workers = workers or os.cpu_count() or 1
    pool = (
        ProcessPoolExecutor(max_workers=workers, initializer=_worker_start, initargs=(plan,))
        if workers > 1 and len(found) >= POOL_FROM
        else None
    )
    try:
        return _import(found, plan, skills_root, db, conflict, allow_flagged, tell, pool, started)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _census(found: list[Found], limits: ImportLimits) -> list[Found | ImportOutcome]:
    """Each SKILL.md found, or the verdict that keeps it from being read: hidden, too deep, past max_skills."""
    out: list[Found | ImportOutcome] = []
    taken = 0
    for f in found:
        if f.hidden:
            why = f"inside the hidden folder {f.hidden}/ (of hidden folders, only {', '.join(AGENT_FOLDERS)} are read)"
            out.append(verdict(f.folder, f.folder.name, "hidden", why))
        elif f.beyond_depth:
            why = f"{f.depth} folders deep; at most {limits.max_depth} are read ({limit_hint('max_depth')})"
            out.append(verdict(f.folder, f.folder.name, "over-limit", why))
        elif limits.max_skills is not None and taken >= limits.max_skills:
            why = f"after the first {limits.max_skills} skills ({limit_hint('max_skills')})"
            out.append(verdict(f.folder, f.folder.name, "over-limit", why))
        else:
            taken += 1
            out.append(f)
    return out


def _import(
    found: list[Found],
    plan: ReadPlan,
    skills_root: Path,
    db: Database | None,
    conflict: Conflict,
    allow_flagged: bool,
    tell: Progress,
    pool: Executor | None,
    started: float,
) -> tuple[list[ImportOutcome], ImportSummary]:
    from grove.skills.scan_cache import scan_many

    census = _census(found, plan.limits)
    readable = [f for f in census if isinstance(f, Found)]
    if pool is not None:
        read = pool.map(prepare_in_worker, readable, chunksize=16)
    else:
        read = (prepare(f, plan) for f in readable)
    root_dir = Path(skills_root)
    root_dir.mkdir(parents=True, exist_ok=True)
    existing = {e.name for e in os.scandir(root_dir) if e.is_dir()}
    names = _Names(existing, conflict, root_dir, plan.source_of)
    prepared: list[Prepared | ImportOutcome] = []
    for done, item in enumerate(census, 1):  # names settle here while the workers read on
        got = item if isinstance(item, ImportOutcome) else next(read)
        prepared.append(names.settle(got) if isinstance(got, Prepared) else got)
        tell("reading", done, len(census))
    todo = [p for p in prepared if isinstance(p, Prepared)]
    jobs = [p.repair_job(plan.source_of(p.found)) for p in todo]
    results = pool.map(repaired, jobs, chunksize=32) if pool is not None else map(repaired, jobs)
    for p, (text, checks) in zip(todo, results, strict=True):  # only the skills kept are repaired
        p.text, p.checks, p.parsed = text, checks, {}
    texts = [[("SKILL.md", p.text), *p.scan_files] for p in todo]
    distinct_total = len({t for files in texts for t in files})
    scanned = [0, 0]  # files scanned, skills copied
    outcome_of: dict[int, ImportOutcome] = {}

    def step(n: int) -> None:
        scanned[0] += n
        tell("scanning", scanned[0], distinct_total)

    created: list[tuple[str, str]] = []  # (name, detail) of the skills copied, recorded in batches

    def install(i: int, result: object) -> None:  # as soon as a skill's verdicts are in, while the rest scan
        out = outcome_of[id(todo[i])] = _install(todo[i], result, root_dir, allow_flagged)
        if out.status == "imported":
            created.append((out.name, f"import from {out.source}"))
            if len(created) >= RECORD_EVERY:
                usage.record_many(db, created, "create", "import")
                created.clear()
        scanned[1] += 1
        tell("copying", scanned[1], len(todo))

    try:
        figures = scan_many(db, texts, pool=pool, progress=step, on_result=install)[1] if todo else {}
    finally:  # what was copied is recorded, even when the import stops midway
        usage.record_many(db, created, "create", "import")
    outcomes = [p if isinstance(p, ImportOutcome) else outcome_of[id(p)] for p in prepared]
    return outcomes, summarise(outcomes, time.monotonic() - started, figures)


def _install(p: Prepared, scan: object, skills_root: Path, allow_flagged: bool) -> ImportOutcome:
    from grove.security.skill_scan.scan import ScanResult

    assert isinstance(scan, ScanResult)
    folder, name = p.found.folder, p.name
    out = ImportOutcome(folder, name, "imported", warnings=p.all_warnings, author=p.author)
    if p.original != name:
        out.original_name = p.original
    if scan.blocked:
        why = "dangerous content, refused even with --allow-flagged: " + scan.why("dangerous")
        return _with(out, "refused", why)
    if scan.verdict == "caution" and not allow_flagged:
        why = "flagged, not imported (read the reasons; --allow-flagged imports it): " + scan.why("caution")
        return _with(out, "quarantined", why)
    out.warnings = p.all_warnings + scan.reasons
    with skill_lock(skills_root, name):
        dest = skills_root / name
        if dest.exists() and not p.replace:
            return _with(out, "duplicate", f"a skill '{name}' appeared in the library meanwhile")
        tmp = _scratch(skills_root)
        try:
            made = {str(tmp)}
            for rel, content, mode in p.copies:  # the bytes read and scanned: the source is not opened again
                target = os.path.join(tmp, rel)
                parent = os.path.dirname(target)
                if parent not in made:  # each folder made once, not once per file
                    os.makedirs(parent, exist_ok=True)
                    made.add(parent)
                write_new(target, content.encode() if isinstance(content, str) else content, mode)
            (tmp / "SKILL.md").write_text(p.text, encoding="utf-8")
            if dest.exists():
                snapshot(skills_root, name, "import", "import", f"replaced by import from {folder}")
                shutil.rmtree(dest)
            os.rename(tmp, dest)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return out


_SCRATCH = itertools.count()


def _scratch(skills_root: Path) -> Path:
    """A new hidden folder to build a skill in (a process's own name: no random name to draw per skill)."""
    tmp = skills_root / f".import-{os.getpid()}-{next(_SCRATCH)}"
    try:
        tmp.mkdir()
    except FileExistsError:  # left by an earlier process of the same pid
        return Path(tempfile.mkdtemp(dir=skills_root, prefix=".import-"))
    return tmp


def _with(out: ImportOutcome, status: str, reason: str) -> ImportOutcome:
    out.status, out.reason, out.fix = status, reason, fix_for(status, reason)
    return out
