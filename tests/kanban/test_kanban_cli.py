"""`grove kanban ...` and `grove worker` as a user runs them (SQLite in GROVE_HOME's state.db)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.clirun import grove


def test_add_list_show_retry_archive_stats(capsys: pytest.CaptureFixture[str]) -> None:
    assert grove(capsys, "kanban", "add", "first", "--body", "do it")[1].strip() == "#1 [ready] p0 first"
    code, out, _ = grove(
        capsys, "kanban", "add", "second", "-p", "1", "--assignee", "coder", "--priority", "2"
    )
    assert (code, out.strip()) == (0, "#2 [todo] p2 @coder second after #1")
    assert grove(capsys, "kanban", "list")[1].splitlines() == [
        "#1 [ready] p0 first",
        "#2 [todo] p2 @coder second after #1",
    ]
    code, out, _ = grove(capsys, "kanban", "show", "2")
    assert code == 0 and "event created" in out
    code, _, err = grove(capsys, "kanban", "retry", "1")
    assert code == 2 and err.startswith("grove: task #1 is ready")
    assert grove(capsys, "kanban", "archive", "2")[1].strip().startswith("#2 [archived]")
    assert "#2" not in grove(capsys, "kanban", "list")[1]
    code, out, _ = grove(capsys, "kanban", "stats")
    assert code == 0 and "ready 1  archived 1" in out
    code, out, _ = grove(capsys, "kanban", "board")
    assert code == 0 and "#1 first" in out


def test_bad_input_is_one_line_and_a_usage_exit(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = grove(capsys, "kanban", "show", "42")
    assert code == 2 and err.strip() == "grove: no kanban task #42: see `grove kanban list`"
    code, _, err = grove(capsys, "kanban", "add", "x", "-p", "7")
    assert code == 2 and "no kanban task #7" in err
    code, _, err = grove(capsys, "kanban", "dispatch")
    assert code == 2 and err.strip() == "grove: say --once or --loop"
    code, _, err = grove(capsys, "kanban", "list", "--status", "doing")
    assert code == 2 and "unknown status 'doing'" in err


def test_dispatch_once_starts_a_real_worker_process(
    capsys, tmp_path: Path, grove_home: Path, monkeypatch
) -> None:
    from grove.kanban.sqlite_board import SqliteBoard

    monkeypatch.setenv("GROVE_KANBAN_WORKSPACES", str(tmp_path / "ws"))
    script = tmp_path / "script.yaml"
    script.write_text(
        "- tool_calls: [{name: kanban_complete, arguments: {summary: finished by a process}}]\n- text: ok\n"
    )
    grove(capsys, "kanban", "add", "job")
    code, out, _ = grove(
        capsys, "kanban", "dispatch", "--once", "-m", f"script:{script}", "--no-decompose", "--no-review"
    )
    assert (code, out.strip()) == (0, "spawned [1]")
    board = SqliteBoard(grove_home / "state.db")
    for _ in range(300):  # the worker runs detached: wait for it (bounded) before the temp dirs go
        if board.get(1).status != "running":
            break
        board.wait(0.5)
    assert board.get(1).result == "finished by a process"
    board.close()
    env = dict(os.environ)  # by hand: the worker claims the task itself
    grove(capsys, "kanban", "add", "job 2")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grove",
            "worker",
            "--task",
            "2",
            "-m",
            f"script:{script}",
            "--no-review",
            "-t",
            "files",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "task #2: done"
    assert "result: finished by a process" in grove(capsys, "kanban", "show", "2")[1]
    again = subprocess.run(
        [sys.executable, "-m", "grove", "worker", "--task", "2", "-m", f"script:{script}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert again.returncode == 1 and "is not ready to claim" in again.stderr


def test_db_option_names_a_postgresql_board(capsys, pg_cluster) -> None:
    url = pg_cluster.create_db("cli_board")
    assert grove(capsys, "kanban", "--db", url, "add", "shared")[1].strip() == "#1 [ready] p0 shared"
    assert grove(capsys, "kanban", "--db", url, "list")[1].strip() == "#1 [ready] p0 shared"
    assert grove(capsys, "kanban", "list")[1] == ""  # the default board (state.db) is another one


def test_stats_shows_throughput_and_reclaims(capsys: pytest.CaptureFixture[str], grove_home: Path) -> None:
    from grove.kanban.sqlite_board import SqliteBoard

    board = SqliteBoard(grove_home / "state.db")
    task = board.add("a")
    claim = board.claim("w", "h", lease_s=0.001)
    board.wait(0.01)
    assert board.reclaim_expired() == [task.id] and claim is not None
    again = board.claim("w", "h")
    assert again is not None
    board.complete(task.id, again.fence, "ok")
    board.close()
    code, out, _ = grove(capsys, "kanban", "stats")
    assert code == 0 and "done 1" in out and "reclaims 1" in out and "done/min 0.017" in out
    code, out, _ = grove(capsys, "kanban", "stats", "--json")
    assert json.loads(out)["reclaims"] == 1
