"""The PostgreSQL backend (many machines on one board, psycopg 3): claims pick rows with FOR UPDATE SKIP LOCKED so
dispatchers never wait on each other's candidates, and every change NOTIFYs `grove_kanban` to wake them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from grove.errors import GroveError
from grove.kanban.leases import Leases
from grove.kanban.schema import MIGRATIONS, migration

CHANNEL = "grove_kanban"
_LOCK_KEY = 0x6B616E62  # advisory lock serialising migrations between processes
_CLAIM_KEY = 0x6B616E63  # advisory lock serialising claims under board-wide limits


class _PgTx:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def q(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql.replace("?", "%s"), tuple(params))
        return list(cur.fetchall()) if cur.description else []

    def x(self, sql: str, params: Iterable[Any] = ()) -> int:
        return int(self.conn.execute(sql.replace("?", "%s"), tuple(params)).rowcount)


class PostgresBoard(Leases):
    dialect = "postgres"
    skip_locked = " FOR UPDATE SKIP LOCKED"

    def __init__(self, url: str, clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        try:
            import psycopg
            from psycopg.rows import dict_row
        except ImportError as e:
            raise GroveError(
                "a postgresql:// board needs psycopg: pip install 'grove-agent[postgres]'"
            ) from e
        self.url = url
        # transactions are explicit. (psycopg.connect is Connection.connect taken from the class: its Self has the
        # default tuple rows, so the dict_row factory looks wrong to pyright.)
        self.conn = psycopg.connect(url, row_factory=dict_row, autocommit=True)  # pyright: ignore[reportArgumentType]
        self.lock = threading.RLock()
        self._listener: Any = None
        self._migrate()

    def _migrate(self) -> None:
        with self.transaction() as tx:
            tx.q("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
            tx.x("CREATE TABLE IF NOT EXISTS kanban_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            row = tx.q("SELECT value FROM kanban_meta WHERE key = 'schema'")
            current = int(row[0]["value"]) if row else 0
            if current > len(MIGRATIONS):
                raise RuntimeError(f"kanban schema {current} is newer than this grove knows; upgrade grove")
            for number in range(current + 1, len(MIGRATIONS) + 1):
                # grove's own migration text; psycopg's types want a literal (or sql.SQL) query
                self.conn.execute(migration(number, "postgres"))  # pyright: ignore[reportCallIssue, reportArgumentType]
            if current < len(MIGRATIONS):
                tx.x(
                    "INSERT INTO kanban_meta (key, value) VALUES ('schema', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (len(MIGRATIONS),),
                )

    @contextmanager
    def transaction(self) -> Iterator[_PgTx]:
        with self.lock, self.conn.transaction():
            yield _PgTx(self.conn)

    def claim_lock(self, tx: Any) -> None:
        # Row locks cannot guard a count (SKIP LOCKED lets two claims each see room for one more): held to commit.
        tx.q("SELECT pg_advisory_xact_lock(?)", (_CLAIM_KEY,))

    def notify(self, tx: Any) -> None:
        tx.x(f"NOTIFY {CHANNEL}")  # delivered at commit, once per transaction however often it is sent

    def wait(self, timeout: float) -> bool:
        """LISTEN on a connection of its own; True when a notification arrived before `timeout`."""
        import psycopg

        if self._listener is None:
            self._listener = psycopg.connect(self.url, autocommit=True)
            self._listener.execute(f"LISTEN {CHANNEL}")
        for _ in self._listener.notifies(timeout=timeout, stop_after=1):
            return True
        return False

    def close(self) -> None:
        with self.lock:
            self.conn.close()
            if self._listener is not None:
                self._listener.close()
