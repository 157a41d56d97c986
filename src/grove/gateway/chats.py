"""Which grove session each platform chat continues (state.db `gateway_chats`), so a chat resumes after restarts."""

from __future__ import annotations

import time

from grove.store.db import Database


class ChatSessions:
    def __init__(self, db: Database, platform: str) -> None:
        self.db = db
        self.platform = platform

    def get(self, chat_id: str) -> str | None:
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT session_id FROM gateway_chats WHERE platform = ? AND chat_id = ?",
                (self.platform, chat_id),
            ).fetchone()
        return row["session_id"] if row else None

    def set(self, chat_id: str, session_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO gateway_chats (platform, chat_id, session_id, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET session_id = excluded.session_id, "
                "updated_at = excluded.updated_at",
                (self.platform, chat_id, session_id, time.time()),
            )

    def forget(self, chat_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "DELETE FROM gateway_chats WHERE platform = ? AND chat_id = ?", (self.platform, chat_id)
            )
