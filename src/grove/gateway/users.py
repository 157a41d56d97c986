"""Who each platform account is to grove: owner, admin, user, blocked, or a stranger waiting with a pairing code.
Kept in GROVE_HOME/gateway/gateway.db (shared by the running gateways and `grove gateway users`); config's
`owners` / `allowed_users` / `allow_everyone` count too, and a block in the book beats them all."""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from grove.gateway.adapter import GatewayError

if TYPE_CHECKING:
    from grove.config.gateway import GatewayPlatformConfig

Role = Literal["owner", "admin", "user", "blocked"]
ROLES: tuple[Role, ...] = ("owner", "admin", "user", "blocked")
MANAGERS = ("owner", "admin")  # may accept pairing codes and block users from a chat
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed by hand
CODE_TTL = 3600.0
MAX_PENDING = 200  # per platform: a flood of strangers cannot grow the book without bound

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
  platform TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, name TEXT NOT NULL DEFAULT '',
  updated_at REAL NOT NULL, PRIMARY KEY (platform, user_id));
CREATE TABLE IF NOT EXISTS pairing (
  platform TEXT NOT NULL, code TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL DEFAULT '',
  expires_at REAL NOT NULL, PRIMARY KEY (platform, code));
CREATE TABLE IF NOT EXISTS cursors (
  platform TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seen (
  platform TEXT NOT NULL, message_id TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (platform, message_id));
"""


def gateway_db_path(home: Path) -> Path:
    return home / "gateway" / "gateway.db"


@dataclass(frozen=True)
class Person:
    platform: str
    user_id: str
    role: str
    name: str = ""
    source: str = "book"  # book (grove gateway users) or config


def normal_code(text: str) -> str:
    return text.strip().upper().replace("-", "").replace(" ", "")


class UserBook:
    """One SQLite file; every call is its own short transaction, so the CLI's changes reach a running gateway."""

    def __init__(self, home: Path) -> None:
        path = gateway_db_path(home)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.conn = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        path.chmod(0o600)  # account ids and pairing codes are nobody else's business
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA)
        self.lock = threading.RLock()  # one connection, used from the event loop and the CLI's thread

    def close(self) -> None:
        self.conn.close()

    # -- roles -------------------------------------------------------------------------------------------------
    def booked(self, platform: str, user_id: str) -> str | None:
        row = self.conn.execute(
            "SELECT role FROM users WHERE platform = ? AND user_id = ?", (platform, user_id)
        ).fetchone()
        return row["role"] if row else None

    def role(self, platform: str, user_id: str, config: GatewayPlatformConfig) -> Role | None:
        """The account's role, None for a stranger. Only the id counts: a display name is anyone's to take."""
        if not user_id:
            return None
        booked = self.booked(platform, user_id)
        if booked in ROLES:
            return booked
        if user_id in {str(x) for x in config.owners}:
            return "owner"
        if user_id in {str(x) for x in config.allowed_users} or config.allow_everyone:
            return "user"
        return None

    def set_role(self, platform: str, user_id: str, role: Role, name: str = "") -> None:
        if role not in ROLES:
            raise GatewayError(f"unknown role '{role}': use one of {', '.join(ROLES)}")
        with self.lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute(
                "INSERT INTO users (platform, user_id, role, name, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, user_id) DO UPDATE SET role = excluded.role, "
                "name = CASE WHEN excluded.name = '' THEN users.name ELSE excluded.name END, "
                "updated_at = excluded.updated_at",
                (platform, user_id, role, name, time.time()),
            )
            self.conn.execute("DELETE FROM pairing WHERE platform = ? AND user_id = ?", (platform, user_id))

    def people(self, platform: str | None = None) -> list[Person]:
        rows = self.conn.execute(
            "SELECT platform, user_id, role, name FROM users WHERE ? IS NULL OR platform = ? "
            "ORDER BY platform, role, user_id",
            (platform, platform),
        ).fetchall()
        return [Person(r["platform"], r["user_id"], r["role"], r["name"]) for r in rows]

    # -- pairing -----------------------------------------------------------------------------------------------
    def pairing_code(
        self, platform: str, user_id: str, name: str = "", now: float | None = None
    ) -> str | None:
        """The stranger's code (the same one again while it is valid); None when too many are waiting."""
        now = time.time() if now is None else now
        with self.lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("DELETE FROM pairing WHERE expires_at <= ?", (now,))
            row = self.conn.execute(
                "SELECT code FROM pairing WHERE platform = ? AND user_id = ?", (platform, user_id)
            ).fetchone()
            if row:
                return _shown(row["code"])
            (waiting,) = self.conn.execute(
                "SELECT COUNT(*) FROM pairing WHERE platform = ?", (platform,)
            ).fetchone()
            if waiting >= MAX_PENDING:
                return None
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
            self.conn.execute(
                "INSERT INTO pairing (platform, code, user_id, name, expires_at) VALUES (?, ?, ?, ?, ?)",
                (platform, code, user_id, name, now + CODE_TTL),
            )
            return _shown(code)

    def waiting(
        self, platform: str | None = None, now: float | None = None
    ) -> list[tuple[str, str, str, str]]:
        """(platform, code, user id, name) of every valid pairing code."""
        now = time.time() if now is None else now
        rows = self.conn.execute(
            "SELECT platform, code, user_id, name FROM pairing WHERE expires_at > ? AND (? IS NULL OR "
            "platform = ?) ORDER BY expires_at",
            (now, platform, platform),
        ).fetchall()
        return [(r["platform"], _shown(r["code"]), r["user_id"], r["name"]) for r in rows]

    def accept(self, platform: str, who: str, role: Role = "user", now: float | None = None) -> str:
        """Give `who` (a pairing code, else an account id) `role`; returns the account id."""
        now = time.time() if now is None else now
        row = self.conn.execute(
            "SELECT user_id, name FROM pairing WHERE platform = ? AND code = ? AND expires_at > ?",
            (platform, normal_code(who), now),
        ).fetchone()
        user_id, name = (row["user_id"], row["name"]) if row else (who.strip(), "")
        if not user_id:
            raise GatewayError("give a pairing code or an account id")
        self.set_role(platform, user_id, role, name)
        return user_id

    # -- delivered messages, so a restart or a redelivery never answers twice -----------------------------------
    def first_time(self, platform: str, message_id: str, keep_days: float = 7.0) -> bool:
        """True once per (platform, message id): the message is claimed now; False if it was seen before."""
        now = time.time()
        with self.lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            taken = self.conn.execute(
                "INSERT OR IGNORE INTO seen (platform, message_id, at) VALUES (?, ?, ?)",
                (platform, message_id, now),
            ).rowcount
            if taken and secrets.randbelow(200) == 0:  # now and then, forget what no platform redelivers
                self.conn.execute("DELETE FROM seen WHERE at < ?", (now - keep_days * 86400,))
        return bool(taken)

    # -- where a platform's event stream was left (a Matrix sync token), so a restart neither replays nor skips --
    def cursor(self, platform: str) -> str | None:
        row = self.conn.execute("SELECT value FROM cursors WHERE platform = ?", (platform,)).fetchone()
        return row["value"] if row else None

    def set_cursor(self, platform: str, value: str) -> None:
        with self.lock, self.conn:
            self.conn.execute(
                "INSERT INTO cursors (platform, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (platform) "
                "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (platform, value, time.time()),
            )


def _shown(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"
