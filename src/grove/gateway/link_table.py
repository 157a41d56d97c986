"""Where running gateways publish their platforms' connection state for the dashboard: the `links` table of
GROVE_HOME/gateway/gateway.db (the file the gateways and `grove gateway users` already share), one row per
platform, written on every change and marked by a heartbeat."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from grove.gateway.link import LinkState
from grove.gateway.users import gateway_db_path

SCHEMA = """
CREATE TABLE IF NOT EXISTS links (
  platform TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL, since REAL NOT NULL, error TEXT NOT NULL DEFAULT '',
  attempts INTEGER NOT NULL DEFAULT 0, retry_at REAL, pid INTEGER NOT NULL, seen_at REAL NOT NULL);
"""
COLUMNS = "platform, state, since, error, attempts, retry_at, pid, seen_at"


class LinkTable:
    """Writes on the gateway's own connection to gateway.db (the UserBook's); each call one short statement."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock | None = None) -> None:
        self.conn = conn
        self.lock = lock or threading.RLock()
        with self.lock:
            self.conn.executescript(SCHEMA)

    def publish(self, s: LinkState) -> None:
        with self.lock, self.conn:
            self.conn.execute(
                f"INSERT OR REPLACE INTO links ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (s.platform, s.state, s.since, s.error, s.attempts, s.retry_at, s.pid, s.seen_at),
            )

    def beat(self, platform: str, at: float | None = None) -> None:
        """The gateway still runs: its link is live whatever it says (a dead gateway stops beating)."""
        with self.lock, self.conn:
            self.conn.execute(
                "UPDATE links SET seen_at = ? WHERE platform = ?",
                (time.time() if at is None else at, platform),
            )


def read_links(home: Path) -> list[LinkState]:
    """Every platform's last published state, by name; none when no gateway ever ran (nothing is created)."""
    path = gateway_db_path(home)
    if not path.is_file():
        return []
    conn = sqlite3.connect(path, timeout=5)
    try:
        rows = conn.execute(f"SELECT {COLUMNS} FROM links ORDER BY platform").fetchall()
    except sqlite3.OperationalError:  # a gateway.db from before the links table
        return []
    finally:
        conn.close()
    return [LinkState(*row) for row in rows]
