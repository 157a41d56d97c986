"""The SQLite backend: the board's tables in state.db (its own connection), writes serialised by BEGIN IMMEDIATE
so a claim is a compare-and-set no other process can interleave with."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from grove.kanban.leases import Leases
from grove.kanban.schema import MIGRATIONS, migration


class _SqliteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def q(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute(sql, tuple(params)).fetchall()]

    def x(self, sql: str, params: Iterable[Any] = ()) -> int:
        return self.conn.execute(sql, tuple(params)).rowcount


class SqliteBoard(Leases):
    dialect = "sqlite"

    def __init__(self, path: Path | str, clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=60)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA busy_timeout = 60000")
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.lock = threading.RLock()
        self._migrate()

    def _migrate(self) -> None:
        with self.transaction() as tx:
            tx.x("CREATE TABLE IF NOT EXISTS kanban_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            row = tx.q("SELECT value FROM kanban_meta WHERE key = 'schema'")
            current = int(row[0]["value"]) if row else 0
            if current > len(MIGRATIONS):
                raise RuntimeError(
                    f"{self.path}: kanban schema {current} is newer than this grove knows; upgrade grove"
                )
            for number in range(current + 1, len(MIGRATIONS) + 1):
                for statement in _statements(migration(number, "sqlite")):
                    tx.x(statement)
            if current < len(MIGRATIONS):
                tx.x(
                    "INSERT OR REPLACE INTO kanban_meta (key, value) VALUES ('schema', ?)", (len(MIGRATIONS),)
                )

    @contextmanager
    def transaction(self) -> Iterator[_SqliteTx]:
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(self.conn)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def wait(self, timeout: float) -> bool:
        """Poll the file's change counter (another connection's commit moves it) until `timeout`."""
        with self.lock:
            start = self.conn.execute("PRAGMA data_version").fetchone()[0]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
            with self.lock:
                if self.conn.execute("PRAGMA data_version").fetchone()[0] != start:
                    return True
        return False

    def close(self) -> None:
        with self.lock:
            self.conn.close()


def _statements(script: str) -> list[str]:
    """Split a migration into statements; a trigger body (BEGIN ... END;) stays whole."""
    out: list[str] = []
    buf = ""
    for part in script.split(";"):
        buf += part + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n;"):
                out.append(buf.strip())
            buf = ""
    return out
