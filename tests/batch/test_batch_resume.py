"""`grove batch` killed mid-run (the batch process and its running workers, as a crash would) and started again:
every card ends done exactly once, cards done before the kill are not worked again, each is labelled once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.batch.conftest import write_dataset

from grove.batch import cards
from grove.batch.dataset import load_dataset
from grove.kanban.open import open_board

N = 5


def _batch(dataset: Path, script: Path, db: Path) -> list[str]:
    return [sys.executable, "-m", "grove", "batch", str(dataset), "-m", f"script:{script}", "-t", "files",
            "-j", "1", "--db", str(db), "--tick", "0.2"]  # fmt: skip


def test_a_killed_batch_resumes_without_doing_a_task_twice(tmp_path: Path, script: Path) -> None:
    lines = [{"id": f"t{i}", "prompt": f"write ok to out.txt ({i})", "verifier": {"file": "out.txt", "equals": "ok"}}
             for i in range(N)]  # fmt: skip
    dataset = write_dataset(tmp_path / "ds.jsonl", lines)
    items = load_dataset(dataset)
    db = tmp_path / "board.db"
    first = subprocess.Popen(_batch(dataset, script, db), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    board = open_board(str(db))
    deadline = time.monotonic() + 30
    labelled: set[str] = set()
    while time.monotonic() < deadline and not labelled:
        time.sleep(0.05)
        with contextlib.suppress(Exception):  # the batch may still be creating the board's tables
            labelled = {i for i, t in cards.find(board, "ds", items).items() if cards.label_of(board, t.id)}
    assert labelled, "no card was labelled within 30 s"
    # the crash: the batch and every worker it started die at once
    first.kill()
    first.wait()
    for task in board.running():
        if task.lease_pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(task.lease_pid, signal.SIGKILL)
    before = cards.find(board, "ds", items)
    done_before = {i for i, t in before.items() if t.status == "done"}
    runs_before = {i: len(board.runs(t.id)) for i, t in before.items()}
    assert len(done_before) < N, "the batch finished before it was killed; the test proves nothing"

    again = subprocess.run(_batch(dataset, script, db), capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{N}/{N} labelled, {N} passed" in again.stdout

    after = cards.find(board, "ds", items)
    assert sorted(after) == sorted(i.id for i in items)  # no card added twice
    assert len(board.tasks()) == N
    for item_id, task in after.items():
        runs = board.runs(task.id)
        assert [r.outcome for r in runs].count("done") == 1, (item_id, runs)
        labels = [c for c in board.comments(task.id) if c.author == cards.AUTHOR]
        assert len(labels) == 1, (item_id, labels)
        if item_id in done_before:  # finished before the crash: not worked again
            assert len(runs) == runs_before[item_id]
    # a third run finds everything labelled and starts no worker
    runs_after = len(board.runs())
    third = subprocess.run(_batch(dataset, script, db), capture_output=True, text=True, timeout=60)
    assert third.returncode == 0 and f"{N}/{N} labelled" in third.stdout
    assert len(board.runs()) == runs_after
    board.close()
