"""A kanban board's backend (`grove kanban backend`): its workers' tools act there, whatever their own
backends.use says; the session records where it ran; an unknown name fails the task with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")

from tests.backends.sshd import Sshd
from tests.clirun import grove

from grove.checkpoints.store import stores_of
from grove.config import Settings
from grove.kanban.open import open_board
from grove.kanban.worker import run_worker
from grove.llm.script import ScriptModel
from grove.runtime.session_backend import where_ran
from grove.store.sessions import SessionStore


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.fixture(autouse=True)
def workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "workspaces"
    monkeypatch.setenv("GROVE_KANBAN_WORKSPACES", str(root))
    return root


def test_a_boards_workers_act_on_its_backend(
    settings: Settings, sshd: Sshd, remote_ws: Path, tmp_path: Path, workspaces: Path
) -> None:
    settings.backends.ssh_config = str(sshd.ssh_config)  # backends.use stays local: the board decides
    board = open_board(str(tmp_path / "board.db"))
    board.set_setting("backend", sshd.spec)
    task = board.add("greet", "write hello.txt")
    steps = [
        call("write_file", path="hello.txt", content="hi from the worker\n"),
        call("kanban_complete", summary="wrote it", artifacts=["hello.txt"]),
        "done",
    ]
    result = run_worker(
        settings, board, task.id, model_override=ScriptModel(steps), toolsets=["files"], review="off"
    )
    assert result.outcome == "done", result
    assert (remote_ws / "hello.txt").read_text() == "hi from the worker\n"
    assert not (workspaces / f"task-{task.id}" / "hello.txt").exists()
    store = SessionStore.open(settings.db_path)
    [session] = [s for s in store.list_sessions(10) if s.source == "worker"]
    assert where_ran(store.db, session.id) == "ssh:" + sshd.spec.split(":")[1]
    # its checkpoint is of the remote workspace, kept here
    [cps] = [s for s in stores_of(settings.home, settings=settings) if s.where == sshd.spec]
    assert [c.session for c in cps.list()] == [session.id]


def test_an_unknown_board_backend_fails_the_task_saying_so(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "board.db"
    board = open_board(str(db))
    board.set_setting("backend", "buildbox")  # a name this host's backends.named does not know
    task = board.add("greet")
    result = run_worker(settings, board, task.id, model_override=ScriptModel(["done"]), review="off")
    assert result.outcome == "failed" and "unknown backend 'buildbox'" in result.detail
    assert "unknown backend 'buildbox'" in str(board.get(task.id).error)
    monkeypatch.setenv("GROVE_KANBAN_DB", str(db))
    code, _out, err = grove(capsys, "kanban", "backend", "ftp:box")
    assert code == 2 and "unknown backend 'ftp:box'" in err
    code, out, _err = grove(capsys, "kanban", "backend", "--clear")
    assert code == 0 and "unset" in out and board.setting("backend") is None
