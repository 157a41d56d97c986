"""The skill scan for imports: each distinct file scanned once, in parallel, its verdict cached by content hash.

The cache key is the file's path inside its skill (its kind depends on it), the scan mode and its bytes; the
scanner version is a hash of grove.security's source, so a changed scanner never reuses an old verdict. The scan
itself is grove.security.skill_scan.scan's: SKILL.md in full, a supporting file with SUPPORT_PROSE (its prose scanned
only if its code is flagged; its verdict cannot depend on it, and every read scans it in full).
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, cast

from grove.security.skill_scan.scan import (
    SUPPORT_PROSE,
    Prose,
    ScanResult,
    Verdict,
    folder_result,
    scan_skill_file,
)

if TYPE_CHECKING:
    from grove.store.db import Database

Files = list[tuple[str, str]]  # (path inside the skill, text)
Progress = Callable[[int], None]


@functools.cache
def scanner_version() -> str:
    import grove.security as security

    digest = hashlib.sha256()
    folder = Path(security.__file__).parent
    for path in sorted(folder.rglob("*.py")) + sorted(folder.rglob("*.json")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def prose_mode(rel: str) -> Prose:
    """How much of a file's prose an import scans: all of SKILL.md (the instructions the agent follows)."""
    return True if rel == "SKILL.md" else SUPPORT_PROSE


def file_key(rel: str, text: str) -> str:
    """The cache key: path, scan mode and bytes (a result without prose must never stand in for one with it)."""
    head = f"{rel}\0{prose_mode(rel)}\0".encode()
    return hashlib.sha256(head + text.encode("utf-8", "surrogatepass")).hexdigest()


def _scan_one(item: tuple[str, str]) -> tuple[Verdict, list[str]]:
    """One file's verdict. A file the scan cannot finish (a scanner bug it trips) is refused, with the error as its
    reason: an import gives every skill a verdict, and what was not read cannot be called safe."""
    rel, text = item
    try:
        result = scan_skill_file(rel, text, f"import:skill/{rel}", prose_mode(rel))
    except Exception as e:
        why = f"dangerous: the scan could not finish ({type(e).__name__}: {str(e)[:120]}); read the file yourself"
        return "dangerous", [why]
    return result.verdict, result.reasons


def worker_start() -> None:
    """A scan worker's collector: what it inherited from the importer is frozen so no collection walks it, and
    young collections run less often (the analysers build many short-lived trees)."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def _cached(db: Database | None, keys: list[str]) -> dict[str, tuple[Verdict, list[str]]]:
    if db is None or not keys:
        return {}
    out: dict[str, tuple[Verdict, list[str]]] = {}
    version = scanner_version()
    try:
        with db.lock:
            for i in range(0, len(keys), 900):
                part = keys[i : i + 900]
                marks = ",".join("?" * len(part))
                for row in db.conn.execute(
                    f"SELECT hash, verdict, reasons FROM skill_scan_cache WHERE scanner = ? AND hash IN ({marks})",
                    [version, *part],
                ):
                    out[row["hash"]] = (row["verdict"], json.loads(row["reasons"]))
    except sqlite3.Error:
        return {}
    return out


def _remember(db: Database | None, fresh: dict[str, tuple[Verdict, list[str]]]) -> None:
    if db is None or not fresh:
        return
    version, now = scanner_version(), time.time()
    try:
        with db.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO skill_scan_cache (hash, scanner, verdict, reasons, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(k, version, v, json.dumps(r, ensure_ascii=False), now) for k, (v, r) in fresh.items()],
            )
    except sqlite3.Error:
        pass  # a cache that cannot be written costs time next import, nothing else


def scan_many(
    db: Database | None,
    skills: list[Files],
    workers: int | None = None,
    progress: Progress | None = None,
    *,
    pool: Executor | None = None,
    on_result: Callable[[int, ScanResult], None] | None = None,
) -> tuple[list[ScanResult], dict[str, int]]:
    """Every skill's scan result, scanning each distinct file once (cache first, then `pool`, or `workers` processes
    of its own). `on_result(i, result)` is called for each skill as soon as all its files' verdicts are in, so its
    caller can copy it while the rest scan. Returns the results and figures: files, distinct, cached, scanned,
    prose_at_read."""
    distinct: dict[str, tuple[str, str]] = {}
    keys = [[file_key(rel, text) for rel, text in files] for files in skills]  # each text hashed once
    for files, their_keys in zip(skills, keys, strict=True):
        for key, item in zip(their_keys, files, strict=True):
            distinct.setdefault(key, item)
    verdicts = _cached(db, list(distinct))
    cached = len(verdicts)
    todo = [(k, item) for k, item in distinct.items() if k not in verdicts]
    todo.sort(key=lambda x: -len(x[1][1]))  # the longest first, so no worker is left with one at the end
    results: list[ScanResult | None] = [None] * len(skills)
    waiting: dict[str, list[int]] = {}  # a file's key -> the skills still waiting for its verdict
    left = [0] * len(skills)

    def finish(i: int) -> None:
        files, their_keys = skills[i], keys[i]
        result = folder_result(
            (rel, ScanResult(*verdicts[k])) for (rel, _), k in zip(files, their_keys, strict=True)
        )
        results[i] = result
        if on_result is not None:
            on_result(i, result)

    for i, their_keys in enumerate(keys):
        missing = {k for k in their_keys if k not in verdicts}
        left[i] = len(missing)
        for k in missing:
            waiting.setdefault(k, []).append(i)
    for i in range(len(skills)):
        if not left[i]:
            finish(i)
    fresh: dict[str, tuple[Verdict, list[str]]] = {}

    def got(k: str, verdict: tuple[Verdict, list[str]]) -> None:
        verdicts[k] = fresh[k] = verdict
        for i in waiting.pop(k, ()):
            left[i] -= 1
            if not left[i]:
                finish(i)
        if progress:
            progress(1)

    workers = workers or os.cpu_count() or 1
    own = (
        ProcessPoolExecutor(max_workers=workers, initializer=worker_start)
        if pool is None and workers > 1 and len(todo) > 8
        else None
    )
    try:
        runner = pool or own
        if runner is not None:
            for (k, _), verdict in zip(
                todo, runner.map(_scan_one, [i for _, i in todo], chunksize=4), strict=True
            ):
                got(k, verdict)
        else:
            for k, item in todo:
                got(k, _scan_one(item))
    finally:
        if own is not None:
            own.shutdown(cancel_futures=True)
        _remember(db, fresh)  # what was scanned before an interruption is not scanned again
    figures = {
        "files": sum(len(f) for f in skills),
        "distinct": len(distinct),
        "cached": cached,
        "scanned": len(fresh),
        # supporting files whose prose the import leaves to read time unless their code is flagged (SUPPORT_PROSE)
        "prose_at_read": sum(rel != "SKILL.md" for rel, _ in distinct.values()),
    }
    assert all(r is not None for r in results)
    return cast(list[ScanResult], results), figures
