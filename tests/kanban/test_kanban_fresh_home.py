"""Workers started together on a fresh home all open state.db at once: the store's migrations must not fail in
the processes that lose the race (they once failed with "table sessions already exists")."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from grove.store.migrations import MIGRATIONS

OPEN = """
import sys
from grove.store.sessions import SessionStore
sys.stdin.readline()  # start together
SessionStore.open(sys.argv[1]).db.close()
print("ok")
"""


def test_processes_opening_a_fresh_store_together_all_succeed(tmp_path: Path) -> None:
    for attempt in range(3):  # the race is not hit every time: try a few fresh stores
        db = tmp_path / f"state-{attempt}.db"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(db)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        results = [p.communicate(timeout=120) for p in procs]
        assert all(out.strip() == "ok" for out, _ in results), [err for _, err in results if err]
        with sqlite3.connect(db) as conn:  # and no loser set the schema version back
            assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
