"""Which grove session each platform chat continues (state.db `gateway_chats`), so a chat resumes after restarts."""

from __future__ import annotations

import time

from grove.store.db import Database

SEP = "\x1f"  # between a conversation's chat id and account id: a separator no platform puts in an id


def chat_key(chat_id: str, user_id: str) -> str:
    """How a conversation (chat, account) is kept: one per person in a group chat."""
    return f"{chat_id}{SEP}{user_id}"


def account_of(key: str) -> str:
    """The account a kept conversation belongs to; a bare chat id (an owner's, stored before conversations were
    per account) is the chat's own (a direct chat's id is its account's)."""
    chat, sep, user = key.partition(SEP)
    return user if sep else chat


def kept(db: Database) -> list[tuple[str, str, str]]:
    """(platform, kept key, session id) of every conversation this home's state.db continues."""
    with db.lock:
        rows = db.conn.execute(
            "SELECT platform, chat_id, session_id FROM gateway_chats ORDER BY updated_at DESC"
        ).fetchall()
    return [(r["platform"], r["chat_id"], r["session_id"]) for r in rows]


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
