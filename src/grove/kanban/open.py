"""Opening a board from a location: a postgresql:// URL, else a SQLite file (default: GROVE_HOME/state.db)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from grove.kanban.leases import Leases

ENV = "GROVE_KANBAN_DB"


def board_location(db: str | None, home: Path) -> str:
    """--db, else $GROVE_KANBAN_DB, else state.db in grove's home."""
    return db or os.environ.get(ENV) or str(home / "state.db")


def open_board(location: str, clock: Callable[[], float] = time.time) -> Leases:
    if location.startswith(("postgresql://", "postgres://")):
        from grove.kanban.postgres_board import PostgresBoard

        return PostgresBoard(location, clock)
    from grove.kanban.sqlite_board import SqliteBoard

    return SqliteBoard(location, clock)
