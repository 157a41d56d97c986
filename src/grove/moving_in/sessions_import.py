"""Past sessions of another agent into state.db: the user and assistant text of each (tool calls and results are
left out: their ids and shapes are the other agent's), redacted like everything grove stores, one transaction per
session, remembered in `imported_sessions` so a second run copies nothing twice."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from grove.moving_in.report import Report
from grove.store.db import Database

SOURCE = "import"


@dataclass
class Past:
    origin_id: str
    title: str | None
    model: str
    created_at: float
    messages: list[tuple[str, str, float]] = field(default_factory=list)  # (role, text, at)
    left_out: int = 0  # tool calls, tool results, other records


def _epoch(value: Any, default: float) -> float:
    if isinstance(value, int | float):
        return float(value) / (1000.0 if value > 1e11 else 1.0)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return default
    return default


def _text(content: Any) -> tuple[str, int]:
    """Text of a message's content (a string or a list of blocks), and how many non-text blocks it had."""
    if isinstance(content, str):
        return content, 0
    if not isinstance(content, list):
        return "", 1
    parts, other = [], 0
    for block in content:
        if isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
            parts.append(str(block.get("text", "")))
        elif isinstance(block, str):
            parts.append(block)
        else:
            other += 1
    return "\n".join(p for p in parts if p), other


def hermes_sessions(path: Path) -> Iterator[Past]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        scols = {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
        mcols = {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
        if "id" not in scols or not {"session_id", "role", "content"} <= mcols:
            raise ValueError("state.db has no sessions/messages tables of the known shape")
        started = (
            "started_at" if "started_at" in scols else ("created_at" if "created_at" in scols else "NULL")
        )
        title = "title" if "title" in scols else "NULL"
        model = "model" if "model" in scols else "NULL"
        at = "timestamp" if "timestamp" in mcols else ("created_at" if "created_at" in mcols else "NULL")
        for s in conn.execute(
            f"SELECT id, {title} AS title, {model} AS model, {started} AS started FROM sessions"
        ):
            past = Past(
                str(s["id"]), s["title"], str(s["model"] or "unknown"), _epoch(s["started"], time.time())
            )
            rows = conn.execute(
                f"SELECT role, content, {at} AS at FROM messages WHERE session_id = ? ORDER BY {at}, id",
                (s["id"],),
            )
            for m in rows:
                text = m["content"] if isinstance(m["content"], str) else ""
                if m["role"] in ("user", "assistant") and text.strip():
                    past.messages.append((m["role"], text, _epoch(m["at"], past.created_at)))
                else:
                    past.left_out += 1
            yield past
    finally:
        conn.close()


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict):
                yield item


def claude_session(path: Path) -> Past:
    """A Claude Code transcript: one JSON record per line ({type, message: {role, content}, timestamp, ...})."""
    past = Past(path.stem, None, "unknown", path.stat().st_mtime)
    first = True
    for rec in _jsonl(path):
        if rec.get("type") == "summary" and isinstance(rec.get("summary"), str):
            past.title = past.title or rec["summary"][:80]
            continue
        msg = rec.get("message")
        if rec.get("type") not in ("user", "assistant") or not isinstance(msg, dict) or rec.get("isMeta"):
            past.left_out += 1
            continue
        at = _epoch(rec.get("timestamp"), past.created_at)
        if first:
            past.created_at, first = at, False
        if isinstance(msg.get("model"), str) and past.model == "unknown":
            past.model = msg["model"]
        text, other = _text(msg.get("content"))
        past.left_out += other
        if text.strip():
            past.messages.append((str(msg.get("role") or rec["type"]), text, at))
    return past


def codex_session(path: Path) -> Past:
    """A Codex rollout: records whose payload is a response item of type message ({role, content: [blocks]})."""
    past = Past(path.stem, None, "unknown", path.stat().st_mtime)
    for rec in _jsonl(path):
        raw = rec.get("payload")
        payload = raw if isinstance(raw, dict) else rec
        if rec.get("type") == "session_meta":
            past.created_at = _epoch(payload.get("timestamp"), past.created_at)
            past.origin_id = str(payload.get("id") or past.origin_id)
            continue
        if payload.get("type") != "message" or payload.get("role") not in ("user", "assistant"):
            past.left_out += 1
            continue
        text, other = _text(payload.get("content"))
        past.left_out += other
        if text.strip() and not text.lstrip().startswith("<environment_context>"):
            past.messages.append((payload["role"], text, _epoch(rec.get("timestamp"), past.created_at)))
    return past


def read_sessions(fmt: str, paths: list[Path]) -> Iterator[Past | tuple[str, str]]:
    """Each past session, or (item, why) for one that cannot be read."""
    if fmt == "hermes-sqlite":
        for path in paths:
            try:
                yield from hermes_sessions(path)
            except (sqlite3.Error, ValueError) as e:
                yield str(path), f"cannot read: {e}"
        return
    reader = {
        "claude-jsonl": claude_session,
        "codex-jsonl": codex_session,
        "openclaw-jsonl": claude_session,
    }.get(fmt)
    for path in paths:
        if reader is None:
            yield str(path), "this agent's session format is not read"
            continue
        try:
            yield reader(path)
        except OSError as e:
            yield str(path), f"cannot read: {e}"


def import_sessions(
    db: Database | None, agent: str, fmt: str, paths: list[Path], report: Report, apply: bool
) -> None:
    from grove.security.secrets.redact import redact

    done: set[str] = set()
    if db is not None:
        rows = db.conn.execute(
            "SELECT origin_id FROM imported_sessions WHERE origin = ?", (agent,)
        ).fetchall()
        done = {r[0] for r in rows}
    for past in read_sessions(fmt, paths):
        if isinstance(past, tuple):
            report.add("session", past[0], "skipped", detail=past[1])
            continue
        item = past.origin_id
        if item in done:
            report.add("session", item, "skipped", detail="imported before")
            continue
        if not past.messages:
            report.add("session", item, "skipped", detail="no user or assistant text")
            continue
        note = f"{len(past.messages)} messages" + (
            f"; {past.left_out} tool calls/results and other records left out" if past.left_out else ""
        )
        if not apply or db is None:
            report.add("session", item, "converted", "state.db", note)
            continue
        sid = time.strftime("%Y%m%d-%H%M%S", time.gmtime(past.created_at)) + "-" + secrets.token_hex(3)
        first_user = next((t for r, t, _ in past.messages if r == "user"), "")
        head = past.title or (first_user.strip().splitlines()[0] if first_user.strip() else item)
        title = f"[{agent}] {head[:70]}"
        last = max(at for _, _, at in past.messages)
        with db.transaction() as c:
            c.execute(
                "INSERT INTO sessions (id, title, model, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (sid, redact(title), past.model, SOURCE, past.created_at, max(last, past.created_at)),
            )
            for role, text, at in past.messages:
                c.execute(
                    "INSERT INTO messages (session_id, role, content, created_at) VALUES (?, ?, ?, ?)",
                    (sid, role, redact(text), at),
                )
            c.execute(
                "INSERT INTO imported_sessions (origin, origin_id, session_id, imported_at) VALUES (?, ?, ?, ?)",
                (agent, item, sid, time.time()),
            )
        done.add(item)
        report.add("session", item, "converted", f"state.db session {sid}", note)
