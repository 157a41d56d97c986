"""The responses `grove serve` made (state.db `serve_responses`, per key): the body a client can retrieve, and
where in which session each one ended, so `previous_response_id` continues exactly from there."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from grove.store.db import Database

# Made here rather than as a numbered migration: only the API server reads it, and it is safe to make twice
_SCHEMA = """
CREATE TABLE IF NOT EXISTS serve_responses (
    key_name TEXT NOT NULL,
    response_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    last_message_id INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (key_name, response_id)
);
"""


@dataclass(frozen=True)
class StoredResponse:
    session_id: str
    last_message_id: int
    body: dict[str, Any]


class ResponseStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        with self.db.transaction() as conn:
            conn.execute(_SCHEMA)

    def put(self, key_name: str, body: dict[str, Any], session_id: str, last_message_id: int) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO serve_responses (key_name, response_id, session_id, last_message_id, "
                "body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (key_name, body["id"], session_id, last_message_id, json.dumps(body), time.time()),
            )

    def get(self, key_name: str, response_id: str) -> StoredResponse | None:
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT session_id, last_message_id, body FROM serve_responses WHERE key_name = ? AND "
                "response_id = ?",
                (key_name, response_id),
            ).fetchone()
        if row is None:
            return None
        return StoredResponse(row["session_id"], row["last_message_id"], json.loads(row["body"]))

    def delete(self, key_name: str, response_id: str) -> bool:
        with self.db.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM serve_responses WHERE key_name = ? AND response_id = ?", (key_name, response_id)
            )
            return cur.rowcount > 0
