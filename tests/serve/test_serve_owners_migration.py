"""Migration 12: keys made before owners existed become plain keys (not admins) and own what they ran."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from grove.serve.conversations import Conversations
from grove.serve.keys import KeyStore
from grove.store.db import Database
from grove.store.migrations import MIGRATIONS


def test_an_old_key_keeps_working_as_a_plain_key_owning_its_conversations(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for number, script in enumerate(MIGRATIONS[:11], 1):
        conn.executescript(f"BEGIN;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
    conn.execute("INSERT INTO sessions (id, model, created_at, updated_at) VALUES ('s1', 'm', 0, 0)")
    conn.execute(
        "INSERT INTO serve_keys (name, key_id, key_hash, created_at) VALUES ('old', 'abcdefghijkl', 'h', ?)",
        (time.time(),),
    )
    conn.execute("INSERT INTO serve_conversations VALUES ('old', 'c', 's1', 0)")
    conn.close()
    db = Database(path)
    [key] = KeyStore(db).list()
    assert key.name == "old" and key.admin is False
    assert Conversations(db).owner("s1") == "old"
    KeyStore(db).set_admin("old", True)
    assert KeyStore(db).list()[0].admin is True
    KeyStore(db).remove("old")
    assert Conversations(db).owner("s1") is None  # a new key of the same name inherits nothing
