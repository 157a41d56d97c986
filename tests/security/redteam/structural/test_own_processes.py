"""Red team: grove's own Python processes (background review, curator, kanban worker) must never import a module
the agent wrote into the workspace (or the folder grove was started from), nor honour a planted PYTHONPATH."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from grove.config import Settings
from grove.kanban.dispatcher import DispatchConfig, Dispatcher
from grove.kanban.sqlite_board import SqliteBoard
from grove.runtime.background import spawn, spawn_curator

# module files a process started with the workspace (or its cwd) on sys.path would import
PLANTS = [
    "argparse.py",
    "json.py",
    "typing.py",
    "yaml.py",
    "sitecustomize.py",
    "usercustomize.py",
    "grove/__init__.py",
    "grove/runtime/__init__.py",
    "grove/__main__.py",
]
ATTEMPTS = [f"workspace {p}" for p in PLANTS] + ["PYTHONPATH to the workspace", "PYTHONSTARTUP", "cwd grove/"]


def _plant(folder: Path, marker: Path) -> None:
    payload = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for rel in PLANTS:
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(payload)
    (folder / "startup.py").write_text(payload)


def _wait(proc: subprocess.Popen) -> None:
    try:
        proc.wait(120)
    finally:
        if proc.poll() is None:
            proc.kill()


def _log(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    marker = tmp_path / "PLANTED_CODE_RAN"
    _plant(workspace, marker)
    monkeypatch.chdir(workspace)  # grove was started from the workspace, as `grove run` usually is
    monkeypatch.setenv("PYTHONPATH", str(workspace))
    monkeypatch.setenv("PYTHONSTARTUP", str(workspace / "startup.py"))
    monkeypatch.setenv("PYTHONINSPECT", "")
    lib = os.environ.get("LD_LIBRARY_PATH")
    monkeypatch.setenv("LD_LIBRARY_PATH", os.pathsep.join(["", ".", *([lib] if lib else [])]))
    return workspace, marker


def _settings(tmp_path: Path) -> Settings:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return Settings(home=home)


def test_the_background_review_never_imports_what_the_workspace_holds(planted, tmp_path: Path) -> None:
    workspace, marker = planted
    settings = _settings(tmp_path)
    _wait(spawn(settings, "no-such-session", ["skill"], 1, workspace, "script:/nonexistent.yaml"))
    assert not marker.exists(), f"planted code ran in the review process: {marker.read_text()!r}"
    assert "script file not found" in _log(settings.home / "logs" / "review.log")  # it did run grove


def test_the_curator_never_imports_what_the_workspace_holds(planted, tmp_path: Path) -> None:
    _, marker = planted
    settings = _settings(tmp_path)
    _wait(spawn_curator(settings, "script:/nonexistent.yaml"))
    assert not marker.exists(), f"planted code ran in the curator process: {marker.read_text()!r}"
    assert "Traceback" not in _log(
        settings.home / "logs" / "curator.log"
    )  # grove ran (and found nothing due)


def test_a_kanban_worker_never_imports_what_the_dispatchers_folder_holds(
    planted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, marker = planted
    monkeypatch.setenv("GROVE_HOME", str(_settings(tmp_path).home))
    board = SqliteBoard(str(tmp_path / "board.db"))
    task = board.add("nothing")
    logs = tmp_path / "logs"
    dispatcher = Dispatcher(
        board, DispatchConfig(location=str(tmp_path / "board.db"), host="h", log_dir=logs)
    )
    assert dispatcher.tick().spawned == [task.id]  # a real `grove worker` process
    for proc in dispatcher.children:
        _wait(proc)
    assert not marker.exists(), f"planted code ran in the kanban worker: {marker.read_text()!r}"
    assert f"task #{task.id}" in "".join(_log(p) for p in logs.iterdir())  # the worker did run grove
