"""A SQLite spend ledger: reserve a request's estimate under every scope's caps at once, settle its real cost after."""

from __future__ import annotations

import datetime as dt
import sqlite3
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from grove.llm.errors import ErrorKind, ModelError

# One row per (request, scope): a request counts in 'all', its key's, its user's and its entrance's scope.
SCHEMA = """
CREATE TABLE IF NOT EXISTS charge (
    id TEXT NOT NULL,
    scope TEXT NOT NULL,
    day TEXT NOT NULL,
    month TEXT NOT NULL,
    usd REAL NOT NULL,
    tokens INTEGER NOT NULL DEFAULT 0,
    settled INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    PRIMARY KEY (id, scope)
);
CREATE INDEX IF NOT EXISTS charge_scope_day ON charge(scope, day);
CREATE INDEX IF NOT EXISTS charge_scope_month ON charge(scope, month);
"""
# The first ledger (one scope per row, dollars only) kept its rows in `spend`: carried over once.
CARRY_OVER = """
INSERT OR IGNORE INTO charge(id, scope, day, month, usd, tokens, settled, created_at)
    SELECT id, scope, day, month, usd, 0, settled, created_at FROM spend;
DROP TABLE spend;
"""


@dataclass(frozen=True)
class Caps:
    """Caps in US dollars and tokens; None means no cap for that period and unit."""

    day_usd: float | None = None
    month_usd: float | None = None
    day_tokens: int | None = None
    month_tokens: int | None = None
    setting: str = "spend"  # where in config.yaml these caps are set, for the message that says how to raise

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.day_usd, self.month_usd, self.day_tokens, self.month_tokens))


@dataclass(frozen=True)
class Totals:
    day_usd: float = 0.0
    month_usd: float = 0.0
    day_tokens: int = 0
    month_tokens: int = 0


class CapReached(ModelError):
    """Raised before a request when a cap is reached; says which cap, when it resets and how to raise it.

    A ModelError (kind billing) so every entrance that stops on a failed model request stops on this too; it is
    raised outside the retry router, so it is never retried nor sent to a fallback model."""

    def __init__(self, message: str, *, scope: str, cap: str, resets: str) -> None:
        super().__init__(ErrorKind.BILLING, message)
        self.scope, self.cap, self.resets = scope, cap, resets

    def __str__(self) -> str:
        return self.message


def day_reset(now: dt.datetime) -> str:
    return f"{now + dt.timedelta(days=1):%Y-%m-%d} 00:00 UTC"


def month_reset(now: dt.datetime) -> str:
    first = (now.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return f"{first:%Y-%m-%d} 00:00 UTC"


class Ledger:
    """Spend per scope ('all', 'key:NAME', 'user:PLATFORM:ID', 'profile:SOURCE'), shared by every process through
    one SQLite file (GROVE_HOME/spend.db)."""

    def __init__(self, path: Path, clock: Callable[[], dt.datetime] | None = None) -> None:
        self.path = path
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")  # two processes opening a fresh ledger create it once
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            old = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='spend'").fetchone()
            if old:
                for statement in CARRY_OVER.split(";"):
                    if statement.strip():
                        db.execute(statement)
            db.execute("COMMIT")
        finally:
            db.close()

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None so BEGIN IMMEDIATE is ours: it takes the write lock before reading totals,
        # which is what stops two entrances reserving against the same remaining budget.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        return db

    def totals(self, scope: str) -> Totals:
        """Today's and this month's spend (UTC) for scope, reservations not yet settled included."""
        db = self._connect()
        try:
            return self._totals(db, scope, self.clock())
        finally:
            db.close()

    def spent(self, scope: str) -> tuple[float, float]:
        """(today, this month) in USD for scope, reservations included."""
        t = self.totals(scope)
        return t.day_usd, t.month_usd

    def scopes(self) -> list[str]:
        """Every scope with a charge this month, 'all' first."""
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT DISTINCT scope FROM charge WHERE month=? ORDER BY scope", (f"{self.clock():%Y-%m}",)
            ).fetchall()
        finally:
            db.close()
        names = [r[0] for r in rows]
        return ["all", *[n for n in names if n != "all"]] if "all" in names else names

    @staticmethod
    def _totals(db: sqlite3.Connection, scope: str, now: dt.datetime) -> Totals:
        day = db.execute(
            "SELECT COALESCE(SUM(usd),0), COALESCE(SUM(tokens),0) FROM charge WHERE scope=? AND day=?",
            (scope, f"{now:%Y-%m-%d}"),
        ).fetchone()
        month = db.execute(
            "SELECT COALESCE(SUM(usd),0), COALESCE(SUM(tokens),0) FROM charge WHERE scope=? AND month=?",
            (scope, f"{now:%Y-%m}"),
        ).fetchone()
        return Totals(float(day[0]), float(month[0]), int(day[1]), int(month[1]))

    def reserve(self, scope: str, caps: Caps, estimate_usd: float, estimate_tokens: int = 0) -> str:
        """Check one scope's caps and record the estimate in one transaction; returns the reservation id."""
        return self.reserve_all({scope: caps}, estimate_usd, estimate_tokens)

    def reserve_all(self, caps: Mapping[str, Caps], estimate_usd: float, estimate_tokens: int = 0) -> str:
        """Check every scope's caps and record the estimate in each, in one transaction: either the request is
        admitted in all its scopes or in none. A request is admitted while spend is under a cap, so only the
        last admitted one may pass it."""
        now = self.clock()
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            for scope, scope_caps in caps.items():
                reached = _reached(scope, scope_caps, self._totals(db, scope, now), now)
                if reached is not None:
                    db.execute("ROLLBACK")
                    raise reached
            rid = uuid.uuid4().hex
            db.executemany(
                "INSERT INTO charge(id, scope, day, month, usd, tokens, created_at) VALUES (?,?,?,?,?,?,?)",
                [
                    (
                        rid,
                        s,
                        f"{now:%Y-%m-%d}",
                        f"{now:%Y-%m}",
                        estimate_usd,
                        estimate_tokens,
                        now.timestamp(),
                    )
                    for s in caps
                ],
            )
            db.execute("COMMIT")
            return rid
        finally:
            db.close()

    def settle(self, rid: str, actual_usd: float, actual_tokens: int | None = None) -> None:
        """Replace a reservation's estimate with what the request really cost, in every scope it counted in."""
        db = self._connect()
        try:
            if actual_tokens is None:
                db.execute("UPDATE charge SET usd=?, settled=1 WHERE id=?", (actual_usd, rid))
            else:
                db.execute(
                    "UPDATE charge SET usd=?, tokens=?, settled=1 WHERE id=?",
                    (actual_usd, actual_tokens, rid),
                )
        finally:
            db.close()


def _reached(scope: str, caps: Caps, spent: Totals, now: dt.datetime) -> CapReached | None:
    checks = [
        ("day_usd", "daily", caps.day_usd, spent.day_usd, day_reset(now)),
        ("month_usd", "monthly", caps.month_usd, spent.month_usd, month_reset(now)),
        ("day_tokens", "daily", caps.day_tokens, spent.day_tokens, day_reset(now)),
        ("month_tokens", "monthly", caps.month_tokens, spent.month_tokens, month_reset(now)),
    ]
    for key, period, cap, used, resets in checks:
        if cap is None or used < cap:
            continue
        amount = f"${used:.4f} of ${cap:.4f}" if key.endswith("usd") else f"{used:,} of {cap:,} tokens"
        unit = "spend" if key.endswith("usd") else "token"
        return CapReached(
            f"{period} {unit} cap for {scope!r} reached ({amount}); resets {resets}; "
            f"raise it with {caps.setting}.{key} in config.yaml",
            scope=scope,
            cap=key,
            resets=resets,
        )
    return None
