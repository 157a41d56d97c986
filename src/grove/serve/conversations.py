"""Which grove session each client conversation continues (state.db `serve_conversations`), per key, so one
client can never resume another's conversation, and a conversation survives restarts; and which key owns each
session it ran (`serve_session_owners`), so a key sees only its own sessions."""

from __future__ import annotations

import time

from grove.store.db import Database


class Conversations:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key_name: str, conversation: str) -> str | None:
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT session_id FROM serve_conversations WHERE key_name = ? AND conversation = ?",
                (key_name, conversation),
            ).fetchone()
        return row["session_id"] if row else None

    def set(self, key_name: str, conversation: str, session_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO serve_conversations (key_name, conversation, session_id, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (key_name, conversation) DO UPDATE SET "
                "session_id = excluded.session_id, updated_at = excluded.updated_at",
                (key_name, conversation, session_id, time.time()),
            )
            conn.execute(
                "INSERT OR IGNORE INTO serve_session_owners (session_id, key_name) VALUES (?, ?)",
                (session_id, key_name),
            )

    def owner(self, session_id: str) -> str | None:
        """The key that ran this session through the API; None for a session from elsewhere (CLI, cron)."""
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT key_name FROM serve_session_owners WHERE session_id = ?", (session_id,)
            ).fetchone()
        return row["key_name"] if row else None

    def sessions_of(self, key_name: str) -> set[str]:
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT session_id FROM serve_session_owners WHERE key_name = ?", (key_name,)
            ).fetchall()
        return {r["session_id"] for r in rows}
