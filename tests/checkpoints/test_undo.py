"""Undo puts a workspace back byte for byte (modes, links, binary files, the .git directory) after a turn that
destroyed it in many ways, and never loses a change the user made after the checkpoint."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.checkpoints.treehash import tree

from grove.checkpoints.restore import UndoError, last_turns, plan_undo, undo
from grove.checkpoints.store import CheckpointStore
from grove.config.checkpoints import CheckpointsConfig

GIT_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(ws: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", *args],
        cwd=ws,
        env=GIT_ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def populate(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('hello')\n")
    (ws / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(ws / "run.sh", 0o755)
    (ws / "secret.txt").write_text("only me\n")
    os.chmod(ws / "secret.txt", 0o600)
    (ws / "blob.bin").write_bytes(bytes(range(256)) * 64 + b"\x00\xff")
    (ws / "link-to-app").symlink_to("src/app.py")
    (ws / "empty").mkdir()
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "first")


def rm_everything(ws: Path) -> None:
    for child in ws.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def rewrite_history(ws: Path) -> None:
    (ws / "src" / "app.py").write_text("print('rewritten')\n")
    git(ws, "commit", "-q", "-a", "--amend", "-m", "history rewritten")
    git(ws, "reset", "-q", "--hard", "HEAD")
    git(ws, "reflog", "expire", "--expire=now", "--all")
    git(ws, "gc", "-q", "--prune=now")


def chmod_all(ws: Path) -> None:
    os.chmod(ws / "run.sh", 0o644)
    os.chmod(ws / "secret.txt", 0o666)
    os.chmod(ws / "src", 0o700)


def binary_overwrite(ws: Path) -> None:
    (ws / "blob.bin").write_bytes(os.urandom(5000))
    (ws / "new.bin").write_bytes(b"\x00" * 10 + os.urandom(100))


def symlink_swap(ws: Path, outside: Path) -> None:
    (ws / "secret.txt").unlink()
    (ws / "secret.txt").symlink_to(outside / "elsewhere.txt")
    shutil.rmtree(ws / "src")
    (ws / "src").symlink_to(outside)
    (ws / "link-to-app").unlink()
    (ws / "link-to-app").write_text("now a file\n")


def new_tree(ws: Path) -> None:
    (ws / "empty").rmdir()
    (ws / "deep" / "er").mkdir(parents=True)
    (ws / "deep" / "er" / "x.txt").write_text("created")
    (ws / "src" / "app.py").write_text("")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "elsewhere.txt").write_text("not the workspace's\n")
    return out


@pytest.fixture
def cps(workspace: Path, grove_home: Path) -> CheckpointStore:
    return CheckpointStore(grove_home, workspace, CheckpointsConfig())


def one_turn(cps: CheckpointStore, act: Callable[[], None], prompt: str = "do it") -> None:
    cp = cps.take("s1", prompt)
    act()
    cps.seal(cp)


@pytest.mark.parametrize("destroy", ["rm", "history", "chmod", "binary", "symlink", "new_tree"])
def test_undo_restores_byte_for_byte(
    destroy: str, workspace: Path, cps: CheckpointStore, outside: Path
) -> None:
    populate(workspace)
    before = tree(workspace)
    outside_before = tree(outside)
    acts: dict[str, Callable[[], None]] = {
        "rm": lambda: rm_everything(workspace),
        "history": lambda: rewrite_history(workspace),
        "chmod": lambda: chmod_all(workspace),
        "binary": lambda: binary_overwrite(workspace),
        "symlink": lambda: symlink_swap(workspace, outside),
        "new_tree": lambda: new_tree(workspace),
    }
    one_turn(cps, acts[destroy])
    assert tree(workspace) != before  # the turn did damage
    plan = undo(cps, last_turns(cps, 1))
    assert plan.paths
    assert tree(workspace) == before
    assert tree(outside) == outside_before  # restoring through a swapped-in link never wrote outside
    assert git(workspace, "log", "--format=%s") == "first\n"
    assert git(workspace, "status", "--porcelain") == ""


def test_undo_of_several_turns_and_undo_of_the_undo(workspace: Path, cps: CheckpointStore) -> None:
    populate(workspace)
    start = tree(workspace)
    one_turn(cps, lambda: (workspace / "a.txt").write_text("1"))
    after_one = tree(workspace)
    one_turn(cps, lambda: rm_everything(workspace))
    undo(cps, last_turns(cps, 2))
    assert tree(workspace) == start
    assert [c.kind for c in cps.list()] == ["undo"]
    undo(cps, last_turns(cps, 1))  # the newest checkpoint is the state the undo replaced
    assert tree(workspace) == {}  # back to what the second turn left: everything gone
    undo(cps, last_turns(cps, 1))
    assert tree(workspace) == start
    assert after_one != start


def test_a_user_change_after_the_checkpoint_is_never_lost(workspace: Path, cps: CheckpointStore) -> None:
    populate(workspace)
    one_turn(cps, lambda: (workspace / "src" / "app.py").write_text("agent's version\n"))
    (workspace / "src" / "app.py").write_text("the user's version\n")  # after the turn, by the user
    with pytest.raises(UndoError, match=r"src/app.py.*--force"):
        undo(cps, last_turns(cps, 1))
    assert (workspace / "src" / "app.py").read_text() == "the user's version\n"  # refused: untouched
    assert plan_undo(cps, last_turns(cps, 1)).conflicts == ["src/app.py"]
    plan = undo(cps, last_turns(cps, 1), force=True)
    assert (workspace / "src" / "app.py").read_text() == "print('hello')\n"
    assert plan.saved is not None  # the user's version is a checkpoint: undo brings it back
    undo(cps, [plan.saved])
    assert (workspace / "src" / "app.py").read_text() == "the user's version\n"


def test_a_user_change_between_turns_counts_too(workspace: Path, cps: CheckpointStore) -> None:
    populate(workspace)
    one_turn(cps, lambda: (workspace / "notes.md").write_text("agent 1\n"))
    (workspace / "notes.md").write_text("user edit\n")
    one_turn(cps, lambda: (workspace / "other.txt").write_text("agent 2\n"))
    with pytest.raises(UndoError, match=r"notes\.md"):
        undo(cps, last_turns(cps, 2))
    undo(cps, last_turns(cps, 1))  # the last turn alone did not touch it: fine
    assert not (workspace / "other.txt").exists()
    assert (workspace / "notes.md").read_text() == "user edit\n"


def test_a_user_file_the_agent_never_touched_is_left_alone(workspace: Path, cps: CheckpointStore) -> None:
    populate(workspace)
    one_turn(cps, lambda: (workspace / "run.sh").unlink())
    (workspace / "mine.txt").write_text("made by the user after the turn\n")
    undo(cps, last_turns(cps, 1))
    assert (workspace / "run.sh").exists() and os.stat(workspace / "run.sh").st_mode & 0o111
    assert (workspace / "mine.txt").read_text() == "made by the user after the turn\n"


def test_space_is_bounded_oldest_go(workspace: Path, grove_home: Path) -> None:
    cps = CheckpointStore(grove_home, workspace, CheckpointsConfig(keep=3))
    for i in range(6):
        one_turn(cps, lambda i=i: (workspace / "f.txt").write_text(f"version {i}" * 1000), prompt=f"turn {i}")
    assert [c.prompt for c in cps.list()] == ["turn 3", "turn 4", "turn 5"]
    blobs = [b for d in cps.objects.iterdir() if d.is_dir() for b in d.iterdir()]
    assert len(blobs) == 4  # versions 2..5 (turn 3's before is version 2); older contents are gone
    with pytest.raises(UndoError, match="only 3 checkpoint"):
        last_turns(cps, 4)


def test_bytes_cap_prunes_and_big_files_are_noted_not_fatal(workspace: Path, grove_home: Path) -> None:
    cfg = CheckpointsConfig(max_bytes=1 << 20, max_file_bytes=500_000)
    cps = CheckpointStore(grove_home, workspace, cfg)
    (workspace / "huge.dat").write_bytes(b"x" * 600_000)
    for i in range(4):
        one_turn(cps, lambda i=i: (workspace / "f.bin").write_bytes(bytes([i]) * 400_000))
    assert len(cps.list()) < 4
    assert cps.list()[-1].too_big == ["huge.dat"]
    assert cps._referenced_bytes(cps.list()) <= 1 << 20
    undo(cps, last_turns(cps, 1))
    assert (workspace / "f.bin").read_bytes() == bytes([2]) * 400_000
    assert (workspace / "huge.dat").stat().st_size == 600_000  # not kept, so never touched


def test_bad_checkpoint_id_is_a_clear_error(cps: CheckpointStore) -> None:
    with pytest.raises(UndoError, match="grove checkpoints"):
        last_turns(cps, to="nope")
    with pytest.raises(UndoError, match="only 0"):
        last_turns(cps, 1)


def test_store_lives_under_grove_home_not_in_the_workspace(
    workspace: Path, cps: CheckpointStore, grove_home: Path
) -> None:
    populate(workspace)
    config_before = (workspace / ".git" / "config").read_bytes()
    one_turn(cps, lambda: (workspace / "x").write_text("x"))
    assert grove_home.resolve() in cps.root.parents
    assert (workspace / ".git" / "config").read_bytes() == config_before
    assert not any(p.name.startswith(".grove") for p in workspace.rglob("*"))


def test_an_undo_cut_short_can_be_finished(
    workspace: Path, cps: CheckpointStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(workspace)
    before = tree(workspace)
    one_turn(cps, lambda: rm_everything(workspace))
    first = cps.list()[0].id
    real_replace = os.replace
    calls = {"n": 0}

    def flaky(src: str, dst: str) -> None:
        if ".grove-undo-" in str(src):
            calls["n"] += 1
            if calls["n"] == 3:  # the third file of the restore: some are back, some not
                raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(UndoError, match=rf"grove undo --to {first} --force"):
        undo(cps, last_turns(cps, 1))
    monkeypatch.setattr(os, "replace", real_replace)
    assert tree(workspace) != before
    undo(cps, last_turns(cps, to=first), force=True)
    assert tree(workspace) == before
