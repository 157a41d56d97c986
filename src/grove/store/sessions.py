"""Sessions and their messages in state.db: every message committed as it happens, searchable with FTS5."""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grove.errors import GroveError
from grove.llm.types import Message, Usage
from grove.store.db import Database


@dataclass
class SessionInfo:
    id: str
    title: str | None
    model: str
    parent_id: str | None
    source: str
    created_at: float
    updated_at: float
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cost_usd: float
    message_count: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class SearchHit:
    session_id: str
    message_id: int
    role: str
    snippet: str
    score: float
    session_title: str | None
    created_at: float
    matched: str = "words"  # words (full text), meaning (embeddings) or both

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class SessionNotFound(GroveError, LookupError):
    pass


_WORD = re.compile(r"\w+", re.UNICODE)
RANK_WINDOW = 2000


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


class SessionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def open(cls, path: Path | str) -> SessionStore:
        return cls(Database(path))

    # -- sessions -------------------------------------------------------------------------------------------
    def create_session(
        self,
        model: str,
        *,
        title: str | None = None,
        parent_id: str | None = None,
        source: str = "cli",
        system_prompt: str | None = None,
    ) -> str:
        sid = new_session_id()
        now = time.time()
        with self.db.transaction() as c:
            c.execute(
                "INSERT INTO sessions (id, title, model, parent_id, source, system_prompt, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (sid, title, model, parent_id, source, system_prompt, now, now),
            )
        return sid

    def resolve_id(self, prefix: str) -> str:
        """A full id, or a unique prefix of one, or 'last'."""
        with self.db.lock:
            if prefix == "last":
                row = self.db.conn.execute(
                    "SELECT id FROM sessions WHERE source != 'review' ORDER BY updated_at DESC LIMIT 1"
                ).fetchone()
                if row is None:
                    raise SessionNotFound(
                        "there are no sessions yet; start one with `grove run` or `grove chat`"
                    )
                return row["id"]
            rows = self.db.conn.execute(
                "SELECT id FROM sessions WHERE id = ? OR id LIKE ? || '%' LIMIT 2", (prefix, prefix)
            ).fetchall()
        if not rows:
            raise SessionNotFound(f"no session '{prefix}'; `grove sessions list` shows their ids")
        if len(rows) > 1 and rows[0]["id"] != prefix:
            raise SessionNotFound(f"'{prefix}' matches several sessions; give more of the id")
        return rows[0]["id"]

    def get_session(self, session_id: str) -> SessionInfo:
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS message_count"
                " FROM sessions s WHERE id = ?",
                (session_id,),
            ).fetchone()
        if row is None:
            raise SessionNotFound(f"no session '{session_id}'")
        return _session(row)

    def system_prompt(self, session_id: str) -> str | None:
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT system_prompt FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return row["system_prompt"] if row else None

    def list_sessions(self, limit: int = 20, include_reviews: bool = False) -> list[SessionInfo]:
        where = "" if include_reviews else "WHERE source != 'review'"
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS message_count"
                f" FROM sessions s {where} ORDER BY updated_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [_session(r) for r in rows]

    def set_backend(self, session_id: str, where: str) -> None:
        """Record where the session's tools act (local, ssh:HOST, container:IMAGE)."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO session_backends (session_id, backend) VALUES (?, ?) "
                "ON CONFLICT (session_id) DO UPDATE SET backend = excluded.backend",
                (session_id, where),
            )

    def backend_of(self, session_id: str) -> str:
        """Where the session's tools acted; 'local' for a session from before backends were recorded."""
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT backend FROM session_backends WHERE session_id = ?", (session_id,)
            ).fetchone()
        return str(row[0]) if row else "local"

    def set_title(self, session_id: str, title: str) -> None:
        with self.db.transaction() as c:
            c.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))

    def add_usage(self, session_id: str, usage: Usage, cost_usd: float = 0.0, model_calls: int = 1) -> None:
        with self.db.transaction() as c:
            c.execute(
                "UPDATE sessions SET model_calls = model_calls + ?, prompt_tokens = prompt_tokens + ?,"
                " completion_tokens = completion_tokens + ?, cached_tokens = cached_tokens + ?,"
                " cost_usd = cost_usd + ?, updated_at = ? WHERE id = ?",
                (
                    model_calls,
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    usage.cached_tokens,
                    cost_usd,
                    time.time(),
                    session_id,
                ),
            )

    # -- messages -------------------------------------------------------------------------------------------
    def add_message(self, session_id: str, message: Message, usage: Usage | None = None) -> int:
        """Commit one message now: a crash after this returns never loses it. Callers pass redacted messages
        (the agent's `append` is the one place that redacts what enters a conversation)."""
        content = message.get("content")
        parts = None
        # content parts (text and images): kept as parts, searched by their text
        if isinstance(content, list):
            parts = json.dumps(content, ensure_ascii=False)
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("text"))
        elif content is not None and not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        tool_calls = message.get("tool_calls")
        now = time.time()
        with self.db.transaction() as c:
            cur = c.execute(
                "INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, name,"
                " prompt_tokens, completion_tokens, created_at, parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    message["role"],
                    content,
                    json.dumps(tool_calls, ensure_ascii=False) if tool_calls else None,
                    message.get("tool_call_id"),
                    message.get("name"),
                    usage.prompt_tokens if usage else None,
                    usage.completion_tokens if usage else None,
                    now,
                    parts,
                ),
            )
            c.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
            return int(cur.lastrowid or 0)

    def messages(self, session_id: str, active_only: bool = True) -> list[Message]:
        return [m for _, m in self.messages_with_ids(session_id, active_only)]

    def messages_with_ids(self, session_id: str, active_only: bool = True) -> list[tuple[int, Message]]:
        return [(i, m) for i, _, m in self.context_entries(session_id, active_only)]

    def context_entries(self, session_id: str, active_only: bool = True) -> list[tuple[int, float, Message]]:
        """(id, place, message) in conversation order: a compression summary or placeholder takes the place of
        the first message it stands for (`position`), so a resumed session reads in the order it was lived."""
        sql = "SELECT * FROM messages WHERE session_id = ?" + (" AND active = 1" if active_only else "")
        with self.db.lock:
            rows = self.db.conn.execute(
                sql + " ORDER BY COALESCE(position, id), id", (session_id,)
            ).fetchall()
        return [(r["id"], r["position"] if r["position"] is not None else r["id"], _message(r)) for r in rows]

    def compact(
        self,
        session_id: str,
        deactivate: list[int],
        inserts: list[tuple[float, Message]],
        record: dict[str, Any],
    ) -> None:
        """One compression, in one transaction: messages leave the active context (kept, still searchable),
        their stand-ins take their place, and the `compressions` row records what happened."""
        now = time.time()
        with self.db.transaction() as c:
            c.executemany(
                "UPDATE messages SET active = 0 WHERE session_id = ? AND id = ?",
                [(session_id, i) for i in deactivate],
            )
            for place, message in inserts:
                c.execute(
                    "INSERT INTO messages (session_id, role, content, tool_call_id, name, position, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        session_id,
                        message["role"],
                        message.get("content"),
                        message.get("tool_call_id"),
                        message.get("name"),
                        place,
                        now,
                    ),
                )
            columns = ["session_id", "created_at", *record]
            c.execute(
                f"INSERT INTO compressions ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                (session_id, now, *record.values()),
            )

    def compressions(self, session_id: str) -> list[dict[str, Any]]:
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT * FROM compressions WHERE session_id = ? ORDER BY id", (session_id,)
            ).fetchall()
        return [dict(r) for r in rows]

    # -- search ---------------------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        limit: int = 10,
        per_session: int = 1,
        after: float | None = None,
        before: float | None = None,
    ) -> list[SearchHit]:
        """Most relevant first, at most `per_session` hits per session, messages said in [after, before) only.
        Words first; substrings and CJK by trigram.

        A term found in very many messages is ranked among its RANK_WINDOW most recent matches only (BM25 over
        every match of a common word costs ~85 ms at 100K messages, and for such words recency is the better cue);
        when that window yields too few sessions, all matches are ranked.
        """
        words = _WORD.findall(query)
        if not words:
            return []
        quoted = ['"' + w.replace('"', '""') + '"' for w in words]
        attempts = [("messages_fts", " ".join(quoted))]
        if len(words) > 1:
            attempts.append(("messages_fts", " OR ".join(quoted)))
        if len(query.strip()) >= 3:
            attempts.append(("messages_trigram", '"' + query.strip().replace('"', '""') + '"'))
        hits: list[SearchHit] = []
        per: dict[str, int] = {}
        with self.db.lock:
            for table, expr in attempts:
                floor = self.db.conn.execute(
                    f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                    (expr, RANK_WINDOW - 1),
                ).fetchone()
                span = (after or 0.0, before if before is not None else float("inf"))
                found = self._ranked(table, expr, floor[0] if floor else 0, limit, per_session, per, span)
                if floor and len(hits) + len(found) < limit:
                    found = self._ranked(table, expr, 0, limit, per_session, per, span)
                for hit in found:
                    if any(h.message_id == hit.message_id for h in hits):
                        continue  # the same message matched an earlier, stricter pass
                    per[hit.session_id] = per.get(hit.session_id, 0) + 1
                    hits.append(hit)
                    if len(hits) >= limit:
                        return hits
        return hits

    def _ranked(
        self,
        table: str,
        expr: str,
        floor: int,
        limit: int,
        per_session: int,
        taken: dict[str, int],
        span: tuple[float, float] = (0.0, float("inf")),
    ) -> list[SearchHit]:
        """BM25-ranked hits of one FTS expression among rowids >= floor, said within `span`, skipping sessions
        already full."""
        conn = self.db.conn
        ranked = conn.execute(
            f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?",
            (expr, floor, max(50, limit * per_session * 10)),
        ).fetchall()
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        info = {
            r["id"]: r
            for r in conn.execute(
                "SELECT m.id, m.session_id, m.role, m.created_at, s.title FROM messages m"
                f" JOIN sessions s ON s.id = m.session_id WHERE m.id IN ({marks}) AND s.source != 'review'"
                " AND m.created_at >= ? AND m.created_at < ?",
                [*(r[0] for r in ranked), *span],
            )
        }
        counts = dict(taken)
        out: list[SearchHit] = []
        for rowid, score in ranked:
            r = info.get(rowid)
            if r is None or counts.get(r["session_id"], 0) >= per_session:
                continue
            counts[r["session_id"]] = counts.get(r["session_id"], 0) + 1
            snip = conn.execute(
                f"SELECT snippet({table}, 0, '[', ']', '…', 12) FROM {table} WHERE {table} MATCH ? AND rowid = ?",
                (expr, rowid),
            ).fetchone()[0]
            out.append(SearchHit(r["session_id"], rowid, r["role"], snip, score, r["title"], r["created_at"]))
            if len(out) >= limit:
                break
        return out

    def texts_after(self, last_id: int, limit: int) -> tuple[list[tuple[int, float, str]], int]:
        """(id, created_at, text) of the next user and assistant messages with text after `last_id`, oldest first,
        and the id up to which messages were looked at (for embedding them incrementally)."""
        with self.db.lock:
            top = int(self.db.conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0)
            rows = self.db.conn.execute(
                "SELECT id, created_at, content FROM messages WHERE id > ? AND id <= ?"
                " AND role IN ('user', 'assistant') AND content IS NOT NULL AND content != '' ORDER BY id LIMIT ?",
                (last_id, top, limit),
            ).fetchall()
        seen = rows[-1][0] if len(rows) >= limit else top
        return [(r[0], r[1], r[2]) for r in rows], seen

    def session_ids_between(self, after_id: int, upto_id: int) -> dict[int, str]:
        """Each message id in (after_id, upto_id] with its session (the vector index groups messages by it)."""
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT id, session_id FROM messages WHERE id > ? AND id <= ?", (after_id, upto_id)
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def sessions_like_owner(self, session_id: str) -> set[str] | None:
        """The sessions run by the serve key that ran `session_id` (that key's agent recalls only its own), or None
        when no key ran it (a CLI, chat, cron or kanban session recalls every session of its home)."""
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT key_name FROM serve_session_owners WHERE session_id = ?", (session_id,)
            ).fetchone()
            if row is None:
                return None
            rows = self.db.conn.execute(
                "SELECT session_id FROM serve_session_owners WHERE key_name = ?", (row[0],)
            ).fetchall()
        return {r[0] for r in rows}

    def hit_rows(self, ids: list[int]) -> dict[int, dict[str, Any]]:
        """What a search needs of each message id (its session, role, time, whether it is still in the active
        context, its text), reviewer sessions left out."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT m.id, m.session_id, m.role, m.created_at, m.active, m.content, s.title FROM messages m"
                f" JOIN sessions s ON s.id = m.session_id WHERE m.id IN ({marks}) AND s.source != 'review'",
                ids,
            ).fetchall()
        return {r["id"]: dict(r) for r in rows}

    def context_around(self, message_id: int, before: int = 2, after: int = 2) -> list[Message]:
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT session_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                return []
            sid = row["session_id"]
            rows = self.db.conn.execute(
                "SELECT * FROM (SELECT * FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?)"
                " UNION ALL SELECT * FROM messages WHERE id = ?"
                " UNION ALL SELECT * FROM (SELECT * FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?)"
                " ORDER BY id",
                (sid, message_id, before, message_id, sid, message_id, after),
            ).fetchall()
        return [_message(r) for r in rows]


def _session(row: Any) -> SessionInfo:
    keys = row.keys()
    return SessionInfo(
        id=row["id"],
        title=row["title"],
        model=row["model"],
        parent_id=row["parent_id"],
        source=row["source"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        model_calls=row["model_calls"],
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        cached_tokens=row["cached_tokens"],
        cost_usd=row["cost_usd"],
        message_count=row["message_count"] if "message_count" in keys else 0,
    )


def _message(row: Any) -> Message:
    parts = row["parts"] if "parts" in row.keys() else None  # noqa: SIM118 (`in` on a sqlite3.Row tests values)
    msg: Message = {"role": row["role"], "content": json.loads(parts) if parts else row["content"]}
    if row["tool_calls"]:
        msg["tool_calls"] = json.loads(row["tool_calls"])
    if row["tool_call_id"]:
        msg["tool_call_id"] = row["tool_call_id"]
    if row["name"]:
        msg["name"] = row["name"]
    return msg
