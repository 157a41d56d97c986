"""state.db (and its -wal/-shm) hold every conversation: owner-only, like config.yaml, new or left by older grove."""

from __future__ import annotations

import os
from pathlib import Path

from grove.store.db import Database


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_new_state_db_and_its_journal_are_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        db = Database(tmp_path / "home" / "state.db")
        db.conn.execute("CREATE TABLE t (x)")
        db.conn.execute("INSERT INTO t VALUES (1)")
    finally:
        os.umask(old)
    home = tmp_path / "home"
    assert _mode(home) == 0o700
    for name in ("state.db", "state.db-wal", "state.db-shm"):
        assert _mode(home / name) == 0o600, name
    db.close()


def test_an_existing_world_readable_state_db_is_made_owner_only_on_open(tmp_path: Path) -> None:
    Database(tmp_path / "state.db").close()
    for name in ("state.db", "state.db-wal", "state.db-shm"):
        if (tmp_path / name).exists():
            (tmp_path / name).chmod(0o644)
    db = Database(tmp_path / "state.db")
    assert _mode(tmp_path / "state.db") == 0o600
    assert all(_mode(p) == 0o600 for p in tmp_path.glob("state.db-*"))
    db.close()
