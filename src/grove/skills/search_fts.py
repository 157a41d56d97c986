"""skills_search on the catalog's FTS5 index: candidates by FTS5 bm25, then exact BM25F on those few.

The library view behind it (which skills are visible: precedence, shadowing) is a discover kept per process and
redone when a source folder's mtime changes (a skill added, removed or renamed). Names and descriptions in hits
come from the catalog rows, which every discover (each prompt build, skill_view, the CLI) keeps current.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.skills.catalog import FIELDS
from grove.skills.ranking import FIELD_WEIGHTS, SearchHit, bm25f, expand, idf_of
from grove.skills.words import terms

if TYPE_CHECKING:
    from grove.skills.discover import Library
    from grove.store.db import Database

CANDIDATES = 60  # FTS5 ranks; BM25F re-scores this many (the right skill is far inside it in every benchmark)


@dataclass
class _View:
    signature: tuple[tuple[str, int], ...]
    at: float
    lib: Library
    by_path: dict[str, Any]  # visible skill folders
    avg_len: dict[str, float] | None = None


_VIEWS: dict[tuple[str, str], _View] = {}


def _signature(settings: Any, workspace: Path | None) -> tuple[tuple[str, int], ...]:
    from grove.skills.discover import sources

    out = []
    for src in sources(settings, workspace):
        try:
            out.append((str(src.root), src.root.stat().st_mtime_ns))
        except OSError:
            out.append((str(src.root), 0))
    return tuple(out)


def library_view(settings: Any, workspace: Path | None) -> Library:
    """The discovered library, re-walked only when a source folder changed or the view is REFRESH_SECONDS old."""
    from grove.skills.discover import discover

    key = (str(getattr(settings, "home", "")), str(workspace))
    sig = _signature(settings, workspace)
    view = _VIEWS.get(key)
    now = time.monotonic()
    if view is None or view.signature != sig:
        lib = discover(settings, workspace)
        view = _View(sig, now, lib, {str(s.path): s for s in lib.skills.values()})
        _VIEWS[key] = view
    return view.lib


def _view_of(lib: Library) -> _View | None:
    return next((v for v in _VIEWS.values() if v.lib is lib), None)


def _avg_lengths(conn: sqlite3.Connection, paths: list[str]) -> dict[str, float]:
    sums = dict.fromkeys(FIELDS, 0.0)
    rows = 0
    for chunk in range(0, len(paths), 900):
        part = paths[chunk : chunk + 900]
        marks = ",".join("?" * len(part))
        for (lengths,) in conn.execute(f"SELECT lengths FROM skill_catalog WHERE path IN ({marks})", part):
            rows += 1
            for f, n in json.loads(lengths).items():
                sums[f] = sums.get(f, 0.0) + n
    return {f: (sums[f] / rows if rows else 0.0) or 1.0 for f in FIELDS}


def fts_search(db: Database, lib: Library, query: str, limit: int = 5) -> list[SearchHit] | None:
    """The best `limit` visible skills for `query`; None when the index cannot answer (the caller falls back)."""
    q = expand(terms(query))
    if not q:
        return []
    view = _view_of(lib)
    by_path = view.by_path if view else {str(s.path): s for s in lib.skills.values()}
    if not by_path:
        return []
    match = " OR ".join(f'"{t}"' for t in q)
    weights = ", ".join(str(FIELD_WEIGHTS[f]) for f in FIELDS)
    try:
        with db.lock:
            if view is not None and view.avg_len is None:
                view.avg_len = _avg_lengths(db.conn, list(by_path))
            avg_len = view.avg_len if view else _avg_lengths(db.conn, list(by_path))
            rows = db.conn.execute(
                f"SELECT c.path, c.lengths, c.name AS skill, c.description AS text, c.category AS cat,"
                f" f.name, f.description, f.category, f.headings, f.body"
                f" FROM skill_fts f JOIN skill_catalog c ON c.id = f.rowid"
                f" WHERE skill_fts MATCH ? ORDER BY bm25(skill_fts, {weights}) LIMIT ?",
                (match, CANDIDATES * 4),
            ).fetchall()
            marks = ",".join("?" * len(q))
            df = dict(
                db.conn.execute(f"SELECT term, doc FROM skill_fts_vocab WHERE term IN ({marks})", list(q))
            )
    except sqlite3.Error:
        return None
    n = len(by_path)
    idf = {t: idf_of(n, min(d, n)) for t, d in df.items()}
    assert avg_len is not None
    scored = []
    for row in rows:
        skill = by_path.get(row["path"])
        if skill is None:  # shadowed, or in a folder that is not a source now
            continue
        doc = {f: Counter(row[f].split()) for f in FIELDS}
        score = bm25f(doc, json.loads(row["lengths"]), q, idf, avg_len)
        scored.append((score, row["skill"], row["text"], row["cat"]))
        if len(scored) >= CANDIDATES:
            break
    ranked = sorted((x for x in scored if x[0] > 0), key=lambda x: (-x[0], x[1]))
    return [SearchHit(name, round(sc, 4), text, cat) for sc, name, text, cat in ranked[:limit]]
