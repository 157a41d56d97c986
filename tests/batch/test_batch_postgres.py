"""`grove batch` on a shared PostgreSQL board (the many-machines case): two batch processes, as two hosts would
run them, work one dataset together; every card is done once and labelled once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.batch.conftest import write_dataset

from grove.batch import cards
from grove.batch.dataset import load_dataset
from grove.kanban.open import open_board
from grove.kanban.pg_cluster import Cluster

N = 6


def test_two_batch_processes_share_a_postgres_board(
    pg_cluster: Cluster, tmp_path: Path, script: Path
) -> None:
    url = pg_cluster.create_db("batch_shared")
    lines = [
        {"id": f"p{i}", "prompt": f"write ok ({i})", "verifier": {"file": "out.txt", "equals": "ok"}}
        for i in range(N)
    ]
    dataset = write_dataset(tmp_path / "shared.jsonl", lines)
    argv = [sys.executable, "-m", "grove", "batch", str(dataset), "-m", f"script:{script}", "-t", "files",
            "-j", "2", "--db", url, "--tick", "0.2"]  # fmt: skip
    hosts = [
        subprocess.Popen([*argv, "--host", f"host-{h}"], stdout=subprocess.PIPE, text=True) for h in "ab"
    ]
    outs = [p.communicate(timeout=90)[0] for p in hosts]
    assert [p.returncode for p in hosts] == [0, 0], outs
    assert all(f"{N}/{N} labelled, {N} passed" in out for out in outs), outs
    board = open_board(url)
    found = cards.find(board, "shared", load_dataset(dataset))
    assert len(found) == N == len(board.tasks())
    for task in found.values():
        assert [r.outcome for r in board.runs(task.id)] == ["done"]
        assert len([c for c in board.comments(task.id) if c.author == cards.AUTHOR]) == 1
    assert {r.host for t in found.values() for r in board.runs(t.id)} <= {"host-a", "host-b"}
    board.close()
