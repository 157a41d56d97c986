"""Opening state.db: WAL mode, foreign keys, and the numbered migrations applied in one transaction each."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grove.store.migrations import MIGRATIONS


class Database:
    """One SQLite connection shared by a process's threads behind a lock; every write is its own transaction."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        on_disk = str(path) != ":memory:" and not str(path).startswith("file:")
        if on_disk:
            _private_file(self.path)
        self.conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self.conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        self.conn.execute("PRAGMA journal_mode=WAL")
        if on_disk:  # SQLite gives -wal and -shm the database's mode; an older grove's files are fixed here
            for suffix in ("", "-wal", "-shm"):
                _owner_only(Path(f"{self.path}{suffix}"))
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.migrate()

    def migrate(self) -> None:
        with self.lock:
            current = self.conn.execute("PRAGMA user_version").fetchone()[0]
            if current > len(MIGRATIONS):
                raise RuntimeError(
                    f"{self.path} has schema version {current}, newer than this grove knows "
                    f"({len(MIGRATIONS)}); upgrade grove"
                )
            for number in range(current + 1, len(MIGRATIONS) + 1):
                # executescript commits on its own, so the version bump rides inside the script's transaction.
                # The guard fails the script when another process (workers starting together on a fresh home)
                # applied this migration after our first read: re-running an idempotent one would otherwise
                # set user_version back and break every later open.
                guard = (
                    f"CREATE TEMP TABLE _migration_guard (ok INTEGER CHECK (ok = 1));\n"
                    f"INSERT INTO _migration_guard SELECT user_version < {number} FROM pragma_user_version;\n"
                    "DROP TABLE temp._migration_guard;"
                )
                try:
                    self.conn.executescript(
                        f"BEGIN IMMEDIATE;\n{guard}\n{MIGRATIONS[number - 1]}\n"
                        f"PRAGMA user_version = {number};\nCOMMIT;"
                    )
                except sqlite3.Error:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    if self.conn.execute("PRAGMA user_version").fetchone()[0] >= number:
                        continue  # applied by another process meanwhile
                    raise

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self.conn.close()


def _private_file(path: Path) -> None:
    """state.db holds every conversation: its folder (when made here) is 0700 and the file is created 0600."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _owner_only(path.parent, 0o700)  # mkdir's mode is cut by the umask
    with contextlib.suppress(FileExistsError):
        os.close(
            os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        )  # an empty file is a new database


def _owner_only(path: Path, mode: int = 0o600) -> None:
    # a file another user owns (a shared board) cannot be changed by us, and that is not an error
    with contextlib.suppress(OSError):
        if path.exists() and path.stat().st_mode & 0o777 != mode:
            path.chmod(mode)
