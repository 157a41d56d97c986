"""Delegated children of a session whose tools act on an SSH host (its Profile names the backend): a child with
its own workspace gets a fresh folder on that host, removed afterwards; a child viewing the parent's workspace
reads the remote one."""

from __future__ import annotations

import glob
import shutil
from pathlib import Path

import pytest

pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")

from tests.backends.sshd import Sshd
from tests.runtime.delegate_helpers import call, open_parent, reports

from grove.config import Settings
from grove.config.delegation import DelegationConfig
from grove.llm.types import Message, ToolSchema


def writer(messages: list[Message], tools: list[ToolSchema]) -> object:
    if messages[-1]["role"] == "user":
        return call("write_file", path="out.txt", content="child work\n")
    return {"text": "wrote out.txt\n\nOpen questions: none"}


@pytest.mark.parametrize("keep", [True, False])
def test_an_own_workspace_child_works_in_a_folder_on_the_host(
    settings: Settings, sshd: Sshd, remote_ws: Path, workspace: Path, keep: bool
) -> None:
    settings.backends.ssh_config = str(sshd.ssh_config)  # backends.use stays local: the profile chooses
    settings.delegation = DelegationConfig(keep_workspaces=keep)
    before = set(glob.glob("/tmp/grove-child-*"))
    args = {"goal": "write", "tasks": [{"goal": "write it", "workspace": "own"}]}
    session = open_parent(settings, workspace, args, writer, backend=sshd.spec)
    session.run_turn("go")
    session.close()
    (report,) = reports(session)
    assert report["status"] == "done" and report["files_touched"] == ["out.txt"], report
    host, _, folder = report["workspace"].removeprefix("ssh:").partition(":")
    assert host == sshd.spec.split(":")[1] and folder.startswith("/tmp/grove-child-")
    folder = folder.removesuffix(" (removed)")
    try:
        # the sshd is this machine: the host's folder is seen here too
        if keep:
            assert Path(folder, "out.txt").read_text() == "child work\n"
        else:
            assert report["workspace"].endswith(" (removed)") and not Path(folder).exists()
        assert not (remote_ws / "out.txt").exists() and not (workspace / "out.txt").exists()
        stand_ins = set(glob.glob("/tmp/grove-child-*")) - before - {folder}
        assert all(not any(Path(p).iterdir()) for p in stand_ins)  # nothing was written on this machine
        assert keep or not stand_ins  # and the folder made here for it goes, unless kept
    finally:
        for p in {folder} | set(glob.glob("/tmp/grove-child-*")) - before:
            shutil.rmtree(p, ignore_errors=True)


def test_a_viewing_child_reads_the_remote_workspace(
    settings: Settings, sshd: Sshd, remote_ws: Path, workspace: Path
) -> None:
    settings.backends.ssh_config = str(sshd.ssh_config)
    (remote_ws / "notes.txt").write_text("only on the host\n")

    def reader(messages: list[Message], tools: list[ToolSchema]) -> object:
        if messages[-1]["role"] == "user":
            return call("read_file", path="notes.txt")
        return {"text": "read: " + str(messages[-1].get("content"))[:200]}

    session = open_parent(settings, workspace, {"goal": "read notes.txt"}, reader, backend=sshd.spec)
    session.run_turn("go")
    session.close()
    (report,) = reports(session)
    assert report["status"] == "done" and "only on the host" in report["result"], report
