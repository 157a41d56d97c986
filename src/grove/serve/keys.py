"""Client API keys of `grove serve`: made once and shown once, kept only as a sha256 (a key is 256 random bits,
so a fast hash is enough), checked in constant time. A key reads `gsk_<id>_<secret>`; the id finds its row."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

from grove.errors import GroveError
from grove.store.db import Database

PREFIX = "gsk"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_KEY = re.compile(r"^gsk_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$")


class KeyProblem(GroveError):
    """A key cannot be added or removed (bad name, exists, not found)."""


@dataclass(frozen=True)
class ClientKey:
    name: str
    key_id: str
    rate_per_minute: float | None  # None = the server's default
    created_at: float
    last_used_at: float | None
    admin: bool = False  # sees every session and approval, and the dashboard's pages about grove itself


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class KeyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, name: str, rate_per_minute: float | None = None, *, admin: bool = False) -> str:
        """Makes a key named `name`; returns it (the only time it is ever seen)."""
        if not NAME.match(name):
            raise KeyProblem(
                f"key name {name!r} is not allowed: use 1-64 letters, digits, '.', '_' or '-' (e.g. open-webui)"
            )
        if rate_per_minute is not None and rate_per_minute <= 0:
            raise KeyProblem("--rate must be above 0 (requests per minute)")
        key_id = "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12))
        key = f"{PREFIX}_{key_id}_{secrets.token_urlsafe(32)}"
        with self.db.transaction() as conn:
            if conn.execute("SELECT 1 FROM serve_keys WHERE name = ?", (name,)).fetchone():
                raise KeyProblem(
                    f"a key named {name!r} exists; remove it first (grove serve keys remove {name})"
                )
            conn.execute(
                "INSERT INTO serve_keys (name, key_id, key_hash, rate_per_minute, created_at, admin) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (name, key_id, _hash(key), rate_per_minute, time.time(), int(admin)),
            )
        return key

    def list(self) -> list[ClientKey]:
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT name, key_id, rate_per_minute, created_at, last_used_at, admin FROM serve_keys "
                "ORDER BY name"
            ).fetchall()
        return [ClientKey(**{**dict(r), "admin": bool(r["admin"])}) for r in rows]

    def set_admin(self, name: str, admin: bool) -> None:
        with self.db.transaction() as conn:
            if (
                conn.execute("UPDATE serve_keys SET admin = ? WHERE name = ?", (int(admin), name)).rowcount
                == 0
            ):
                raise KeyProblem(f"no key named {name!r} (see grove serve keys list)")

    def remove(self, name: str) -> None:
        with self.db.transaction() as conn:
            if conn.execute("DELETE FROM serve_keys WHERE name = ?", (name,)).rowcount == 0:
                raise KeyProblem(f"no key named {name!r} (see grove serve keys list)")
            conn.execute("DELETE FROM serve_conversations WHERE key_name = ?", (name,))
            # a later key of the same name must not inherit these sessions (an admin still sees them)
            conn.execute("DELETE FROM serve_session_owners WHERE key_name = ?", (name,))

    def count(self) -> int:
        with self.db.lock:
            return int(self.db.conn.execute("SELECT count(*) FROM serve_keys").fetchone()[0])

    def check(self, key: str) -> ClientKey | None:
        """The key's record when `key` is a live key, else None. The secret is compared in constant time."""
        match = _KEY.match(key)
        if match is None:
            return None
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT name, key_id, key_hash, rate_per_minute, created_at, last_used_at, admin FROM serve_keys "
                "WHERE key_id = ?",
                (match.group(1),),
            ).fetchone()
        if row is None or not hmac.compare_digest(row["key_hash"], _hash(key)):
            return None
        return ClientKey(
            row["name"],
            row["key_id"],
            row["rate_per_minute"],
            row["created_at"],
            row["last_used_at"],
            bool(row["admin"]),
        )

    def touch(self, name: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE serve_keys SET last_used_at = ? WHERE name = ?", (time.time(), name))
