"""Two hosts on one PostgreSQL board, each a separate process tree (`grove kanban dispatch --loop` with its own
GROVE_HOST_ID and its workers): work splits between them, and when host A's whole tree is SIGKILLed host B takes
its tasks back on lease expiry (not by pid: the pids are another host's). Runs benchmarks/kanban_two_hosts.py
small against the session's throwaway cluster."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "kanban_two_hosts.py"


def test_a_killed_hosts_tasks_are_taken_back_by_the_other_on_lease_expiry(
    pg_cluster, tmp_path: Path, monkeypatch
) -> None:
    url = pg_cluster.create_db("two_hosts")
    monkeypatch.setenv("GROVE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GROVE_KANBAN_WORKSPACES", str(tmp_path / "ws"))
    done = subprocess.run(
        [sys.executable, str(BENCH), "--db", url, "--tasks", "10", "--lease", "5", "--timeout", "240"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(item.split("=") for item in done.stdout.strip().splitlines()[-1].split())
    n = {k: float(v) for k, v in figures.items()}
    assert n["duplicate_completions"] == 0 and n["lost"] == 0
    assert n["done_on_a"] + n["done_on_b"] == 10 and n["done_on_b"] > 0
    assert n["killed_at_s"] >= 0 and n["held_by_a_at_kill"] >= 1  # A went down holding tasks...
    assert n["taken_back_by_b"] == n["held_by_a_at_kill"]  # ...which B finished
    assert n["expired_reclaims"] >= n["held_by_a_at_kill"]  # taken back because their leases ran out
