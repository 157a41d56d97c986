"""Checkpoints of a workspace on an SSH host (a real sshd on 127.0.0.1): taken and restored over SFTP, byte for
byte with modes and links, refusing to clobber a change made since, the contents kept under grove's home here."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")

from tests.backends.sshd import Sshd
from tests.checkpoints.test_undo import (
    binary_overwrite,
    chmod_all,
    new_tree,
    populate,
    rewrite_history,
    rm_everything,
    symlink_swap,
)
from tests.checkpoints.treehash import tree
from tests.clirun import grove

from grove.backends.open import open_backend
from grove.backends.ssh.backend import SshBackend
from grove.checkpoints.restore import UndoError, last_turns, undo
from grove.checkpoints.store import CheckpointStore, stores_of
from grove.config import Settings
from grove.config.checkpoints import CheckpointsConfig


@pytest.fixture
def backend(ssh_settings: Settings, remote_ws: Path) -> Iterator[SshBackend]:
    b = open_backend(ssh_settings.backends.use, ssh_settings)
    assert isinstance(b, SshBackend)
    yield b
    b.close()


@pytest.fixture
def cps(backend: SshBackend, grove_home: Path) -> CheckpointStore:
    return CheckpointStore(grove_home, backend.tree(), CheckpointsConfig())


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "elsewhere.txt").write_text("not the workspace's\n")
    return out


def one_turn(cps: CheckpointStore, act: Callable[[], None]) -> None:
    cp = cps.take("s1", "do it")
    act()
    cps.seal(cp)


@pytest.mark.parametrize("destroy", ["rm", "history", "chmod", "binary", "symlink", "new_tree"])
def test_remote_undo_restores_byte_for_byte(
    destroy: str, remote_ws: Path, cps: CheckpointStore, outside: Path, grove_home: Path
) -> None:
    populate(remote_ws)  # the sshd is this machine: the remote workspace is seen here too, for the checks
    before, outside_before = tree(remote_ws), tree(outside)
    acts: dict[str, Callable[[], None]] = {
        "rm": lambda: rm_everything(remote_ws),
        "history": lambda: rewrite_history(remote_ws),
        "chmod": lambda: chmod_all(remote_ws),
        "binary": lambda: binary_overwrite(remote_ws),
        "symlink": lambda: symlink_swap(remote_ws, outside),
        "new_tree": lambda: new_tree(remote_ws),
    }
    one_turn(cps, acts[destroy])
    assert tree(remote_ws) != before
    plan = undo(cps, last_turns(cps, 1))
    assert plan.paths
    assert tree(remote_ws) == before
    assert tree(outside) == outside_before  # restoring through a swapped-in link never wrote outside
    assert cps.root.is_relative_to(grove_home)  # the snapshot lives here, not on the host
    assert not any(p.name.startswith(".grove-undo-") for p in remote_ws.rglob("*"))


def test_a_change_made_since_is_refused_even_within_the_same_second(
    remote_ws: Path, cps: CheckpointStore
) -> None:
    """SFTP gives whole-second mtimes and no ctime or inode: a same-size edit in the same second as the agent's
    must still be seen (a file is trusted by its stat only once it is older than the scan)."""
    populate(remote_ws)
    app = remote_ws / "src" / "app.py"
    one_turn(cps, lambda: app.write_text("agent's version\n"))
    stamp = os.stat(app).st_mtime_ns
    app.write_text("users's version\n")  # same size, same second
    os.utime(app, ns=(stamp, stamp))  # and the same mtime, to the nanosecond
    with pytest.raises(UndoError, match=r"src/app.py.*--force"):
        undo(cps, last_turns(cps, 1))
    assert app.read_text() == "users's version\n"
    plan = undo(cps, last_turns(cps, 1), force=True)
    assert app.read_text() == "print('hello')\n" and plan.saved is not None
    undo(cps, [plan.saved])  # the user's version was kept: back it comes
    assert app.read_text() == "users's version\n"


def test_unchanged_old_files_are_not_read_again(remote_ws: Path, cps: CheckpointStore) -> None:
    populate(remote_ws)
    old = time.time() - 60
    for p in remote_ws.rglob("*"):
        os.utime(p, (old, old), follow_symlinks=False)
    cps.take("s1", "first")  # reads everything once
    reads: list[str] = []
    real = cps._store_blob
    cps._store_blob = lambda rel, size: reads.append(rel) or real(rel, size)  # type: ignore[method-assign]
    (remote_ws / "fresh.txt").write_text("new\n")
    cps.take("s1", "second")
    assert reads == ["fresh.txt"]  # old files vouched for by their stat, the new one read


def test_remote_checkpoints_are_listed_and_undone_without_the_session(
    ssh_settings: Settings, remote_ws: Path, cps: CheckpointStore, grove_home: Path
) -> None:
    populate(remote_ws)
    before = tree(remote_ws)
    one_turn(cps, lambda: rm_everything(remote_ws))
    [found] = [s for s in stores_of(grove_home, settings=ssh_settings) if s.where == cps.where]
    assert found.workspace is None and [c.id for c in found.list()] == [c.id for c in cps.list()]
    undo(found, last_turns(found, 1))  # connects on its first act
    assert tree(remote_ws) == before


def test_a_remote_turn_is_undone_by_grove_undo(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sshd: Sshd,
    remote_ws: Path,
    workspace: Path,
    tmp_path: Path,
) -> None:
    """`grove run --backend ssh:...` checkpoints the remote workspace before its first change; `grove undo
    --backend ssh:...` takes the turn back there (the local folder is never touched)."""
    populate(remote_ws)
    before = tree(remote_ws)
    steps = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "src/app.py", "content": "gone\n"}}]},
        {
            "tool_calls": [
                {"name": "terminal", "arguments": {"command": "rm -rf empty run.sh && chmod 600 blob.bin"}}
            ]
        },
        "done",
    ]
    script = tmp_path / "steps.yaml"
    script.write_text(yaml.safe_dump(steps))
    monkeypatch.setenv("GROVE_BACKENDS__SSH_CONFIG", str(sshd.ssh_config))
    monkeypatch.chdir(workspace)
    code, _out, err = grove(
        capsys, "run", "break it", "-m", f"script:{script}", "-t", "files,terminal",
        "--allow-terminal", "--yolo", "--allow-unisolated", "--backend", sshd.spec,
    )  # fmt: skip
    assert code == 0, err
    assert tree(remote_ws) != before
    code, out, err = grove(capsys, "checkpoints", "--backend", sshd.spec)
    assert code == 0 and f"checkpoints of {sshd.spec}" in out and "break it" in out, out + err
    code, out, err = grove(capsys, "undo", "--backend", sshd.spec)
    assert code == 0 and "path(s) restored" in out, out + err
    assert tree(remote_ws) == before
    assert list(workspace.iterdir()) == []
    code, _out, err = grove(capsys, "undo", "--backend", "ftp:box")
    assert code == 2 and "unknown backend 'ftp:box'" in err
