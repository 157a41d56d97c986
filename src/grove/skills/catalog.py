"""The skill catalog in state.db: each SKILL.md parsed once per file stamp, and its FTS5 row kept in step.

A discover on a library of thousands re-parses only the SKILL.md files whose stamp (inode, mtime, size, category
hint) changed; their search rows are replaced in the same transaction, and rows of vanished skills are deleted:
the FTS index is updated incrementally, never rebuilt. Without a database everything is parsed as before.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.skills.frontmatter import SkillFormatError
from grove.skills.skill import Skill, load_skill
from grove.skills.words import terms

if TYPE_CHECKING:
    from grove.store.db import Database

Found = Any  # grove.skills.discover.Found (imported by name only: discover imports this module)

FIELDS = ("name", "description", "category", "headings", "body")
_HEADING = re.compile(r"^#{1,6}\s+(.+)$", re.MULTILINE)
_DBS: dict[str, Database] = {}
MAX_OPEN = 8
_DBS_LOCK = threading.Lock()
# per process: skill folder -> (stamp, Skill or the reason it cannot load); a discover that finds every stamp
# unchanged touches no database at all
_MEMORY: dict[str, tuple[str, Skill | str]] = {}
_ROOTS: dict[tuple[str, str], frozenset[str]] = {}  # (state.db, source root) -> its skill folders


def database(settings: Any) -> Database | None:
    """The state.db of `settings`, opened once per process; None when settings name none or it cannot open."""
    path = getattr(settings, "db_path", None)
    if path is None:
        return None
    key = str(path)
    with _DBS_LOCK:
        if key not in _DBS:
            from grove.store.db import Database

            try:
                _DBS[key] = Database(path)
            except (sqlite3.Error, OSError, RuntimeError):
                return None
            while len(_DBS) > MAX_OPEN:  # a process that sees many homes (tests, benchmarks) keeps a few open
                oldest = next(iter(_DBS))
                _DBS.pop(oldest).close()
        return _DBS[key]


def stamp_of(found: Found) -> str | None:
    st = found.stat
    if st is None:
        return None
    return f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}:{found.category or ''}"


def search_fields(skill: Skill) -> dict[str, str]:
    """The text search sees, per field, as space-joined terms (search's own stemming, so queries match exactly)."""
    body = skill.body
    return {
        "name": " ".join(terms(skill.name.replace("-", " "))),
        "description": " ".join(terms(skill.description)),
        "category": " ".join(terms(skill.category)),
        "headings": " ".join(terms(" ".join(_HEADING.findall(body)))),
        "body": " ".join(terms(body)),
    }


_PARENTS: dict[str, Path] = {}


def _path(text: str) -> Path:
    """Path(text), cheaply: parsing a whole path costs ~40 us, joining one name to a known parent a fraction."""
    parent, _, name = text.rpartition("/")
    base = _PARENTS.get(parent)
    if base is None:
        base = _PARENTS[parent] = Path(parent or "/")
    return base / name


def _row_skill(row: sqlite3.Row, source: str) -> Skill | str:
    if row["error"] is not None:
        return str(row["error"])
    warnings = row["warnings"]
    return Skill(
        name=row["name"],
        description=row["description"],
        path=_path(row["path"]),
        source=source,
        frontmatter=json.loads(row["frontmatter"]),
        body_text=None,
        category=row["category"],
        warnings=json.loads(warnings) if warnings != "[]" else [],
    )


def _store(conn: sqlite3.Connection, root: str, path: str, stamp: str, got: Skill | str) -> None:
    old = conn.execute("SELECT id FROM skill_catalog WHERE path = ?", (path,)).fetchone()
    if old is not None:
        conn.execute("DELETE FROM skill_fts WHERE rowid = ?", (old["id"],))
        conn.execute("DELETE FROM skill_catalog WHERE id = ?", (old["id"],))
    if isinstance(got, str):
        conn.execute(
            "INSERT INTO skill_catalog (path, root, stamp, name, description, category, frontmatter, error)"
            " VALUES (?, ?, ?, '', '', '', '{}', ?)",
            (path, root, stamp, got),
        )
        return
    fields = search_fields(got)
    lengths = {f: len(v.split()) for f, v in fields.items()}
    cur = conn.execute(
        "INSERT INTO skill_catalog (path, root, stamp, name, description, category, frontmatter, warnings,"
        " lengths) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            path,
            root,
            stamp,
            got.name,
            got.description,
            got.category,
            json.dumps(got.frontmatter, default=str, ensure_ascii=False),
            json.dumps(got.warnings, ensure_ascii=False),
            json.dumps(lengths),
        ),
    )
    conn.execute(
        "INSERT INTO skill_fts (rowid, name, description, category, headings, body) VALUES (?, ?, ?, ?, ?, ?)",
        (cur.lastrowid, *(fields[f] for f in FIELDS)),
    )


def _parse(found: Found, source: str) -> Skill | str:
    try:
        return load_skill(found.folder, source, found.category)
    except SkillFormatError as e:
        return str(e)


def load_root(
    db: Database | None, root: Path, found: list[Found], source: str
) -> list[tuple[Found, Skill | str]]:
    """Every found folder with its Skill, or the reason it cannot load; parsing only what changed."""
    if db is None:
        return [(f, _parse(f, source)) for f in found]
    key = str(root)
    stamps = {f.where: stamp_of(f) for f in found}
    hit = {
        p: _MEMORY[p][1] for p, s in stamps.items() if s is not None and p in _MEMORY and _MEMORY[p][0] == s
    }
    if len(hit) == len(found) and _ROOTS.get((str(db.path), key)) == frozenset(stamps):
        return [(f, _with_source(hit[f.where], source)) for f in found]
    try:
        return _sync(db, key, found, stamps, source, hit)
    except sqlite3.Error:
        return [(f, _parse(f, source)) for f in found]


def _with_source(got: Skill | str, source: str) -> Skill | str:
    if isinstance(got, Skill) and got.source != source:
        got = Skill(
            got.name,
            got.description,
            got.path,
            source,
            got.frontmatter,
            got.body_text,
            got.category,
            got.warnings,
        )
    return got


def _sync(
    db: Database,
    key: str,
    found: list[Found],
    stamps: dict[str, str | None],
    source: str,
    hit: dict[str, Skill | str],
) -> list[tuple[Found, Skill | str]]:
    """Rows for what memory lacks (all of them in a new process), parse what changed, drop what vanished."""
    cols = "id, path, stamp, name, description, category, frontmatter, warnings, error"
    misses = [p for p in stamps if p not in hit]
    with db.lock:
        if len(misses) > 500 or (str(db.path), key) not in _ROOTS:
            rows = {
                r["path"]: r
                for r in db.conn.execute(f"SELECT {cols} FROM skill_catalog WHERE root = ?", (key,))
            }
            ids = {p: r["id"] for p, r in rows.items()}
        else:
            rows = {}
            for i in range(0, len(misses), 900):
                part = misses[i : i + 900]
                marks = ",".join("?" * len(part))
                sql = f"SELECT {cols} FROM skill_catalog WHERE path IN ({marks})"
                rows.update((r["path"], r) for r in db.conn.execute(sql, part))
            ids = dict(
                db.conn.execute("SELECT path, id FROM skill_catalog WHERE root = ?", (key,)).fetchall()
            )
    out: list[tuple[Found, Skill | str]] = []
    changed: list[tuple[str, str, Skill | str]] = []
    for f in found:
        path = f.where
        stamp = stamps[path]
        row = rows.get(path)
        if path in hit:
            got = hit[path]
            if path not in ids and stamp is not None:  # known to this process, not to this state.db
                changed.append((path, stamp, got))
        elif stamp is not None and row is not None and row["stamp"] == stamp:
            got = _row_skill(row, source)
        else:
            got = _parse(f, source)
            if stamp is not None:
                changed.append((path, stamp, got))
        if stamp is not None:
            _MEMORY[path] = (stamp, got)
        out.append((f, _with_source(got, source)))
    gone = [(rowid, p) for p, rowid in ids.items() if p not in stamps]
    if changed or gone:
        with db.transaction() as conn:
            for rowid, p in gone:
                conn.execute("DELETE FROM skill_fts WHERE rowid = ?", (rowid,))
                conn.execute("DELETE FROM skill_catalog WHERE id = ?", (rowid,))
                _MEMORY.pop(p, None)
            for path, stamp, got in changed:
                _store(conn, key, path, stamp, got)
    _ROOTS[(str(db.path), key)] = frozenset(stamps)
    return out


def forget() -> None:
    """Drop what this process remembers (tests; a catalog edited behind the process's back)."""
    _MEMORY.clear()
    _ROOTS.clear()
