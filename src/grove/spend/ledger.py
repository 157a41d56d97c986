"""A SQLite spend ledger: reserve a request's estimate under a cap, settle its real cost after."""

from __future__ import annotations

import datetime as dt
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS spend (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    day TEXT NOT NULL,
    month TEXT NOT NULL,
    usd REAL NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS spend_scope_day ON spend(scope, day);
CREATE INDEX IF NOT EXISTS spend_scope_month ON spend(scope, month);
"""


@dataclass(frozen=True)
class Caps:
    """Caps in US dollars; None means no cap for that period."""

    day_usd: float | None = None
    month_usd: float | None = None


class CapReached(RuntimeError):
    """Raised before a request when a cap would be passed; says which cap and when it resets."""


class Ledger:
    """Spend per scope (a key, a user, or 'all'), shared by every process through one SQLite file."""

    def __init__(self, path: Path, clock: Callable[[], dt.datetime] | None = None) -> None:
        self.path = path
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        with self._connect() as db:
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None so BEGIN IMMEDIATE is ours: it takes the write lock before reading totals,
        # which is what stops two entrances reserving against the same remaining budget.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        return db

    def spent(self, scope: str) -> tuple[float, float]:
        """(today, this month) in USD for scope, reservations included."""
        now = self.clock()
        with self._connect() as db:
            return self._totals(db, scope, now)

    @staticmethod
    def _totals(db: sqlite3.Connection, scope: str, now: dt.datetime) -> tuple[float, float]:
        day = db.execute(
            "SELECT COALESCE(SUM(usd),0) FROM spend WHERE scope=? AND day=?",
            (scope, now.strftime("%Y-%m-%d")),
        ).fetchone()[0]
        month = db.execute(
            "SELECT COALESCE(SUM(usd),0) FROM spend WHERE scope=? AND month=?", (scope, now.strftime("%Y-%m"))
        ).fetchone()[0]
        return float(day), float(month)

    def reserve(self, scope: str, caps: Caps, estimate_usd: float) -> str:
        """Check caps and record the estimate in one transaction; returns the reservation id."""
        now = self.clock()
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            day, month = self._totals(db, scope, now)
            if caps.day_usd is not None and day >= caps.day_usd:
                db.execute("ROLLBACK")
                reset = (now + dt.timedelta(days=1)).strftime("%Y-%m-%d 00:00 UTC")
                raise CapReached(
                    f"daily spend cap for {scope!r} reached (${day:.4f} of ${caps.day_usd:.4f}); "
                    f"resets {reset}; raise it with spend.day_usd in config"
                )
            if caps.month_usd is not None and month >= caps.month_usd:
                db.execute("ROLLBACK")
                first = (now.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
                raise CapReached(
                    f"monthly spend cap for {scope!r} reached (${month:.4f} of ${caps.month_usd:.4f}); "
                    f"resets {first:%Y-%m-%d} 00:00 UTC; raise it with spend.month_usd in config"
                )
            rid = uuid.uuid4().hex
            db.execute(
                "INSERT INTO spend(id, scope, day, month, usd, created_at) VALUES (?,?,?,?,?,?)",
                (rid, scope, now.strftime("%Y-%m-%d"), now.strftime("%Y-%m"), estimate_usd, now.timestamp()),
            )
            db.execute("COMMIT")
            return rid
        finally:
            db.close()

    def settle(self, rid: str, actual_usd: float) -> None:
        """Replace a reservation's estimate with what the request really cost."""
        with self._connect() as db:
            db.execute("UPDATE spend SET usd=?, settled=1 WHERE id=?", (actual_usd, rid))
