"""The same file and command tests on every backend: local (the sandbox), SSH (a real sshd) and a container (a
real engine); a backend the machine cannot offer is skipped with the reason."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from grove.tools import files, terminal
from grove.tools.context import ToolContext, backend_of
from grove.tools.registry import ToolError


@pytest.fixture(params=["local", "ssh", "container"])
def where(request: pytest.FixtureRequest, settings, workspace: Path) -> tuple[ToolContext, Path]:
    """(a tool context on that backend, the folder its workspace really is on this machine)."""
    if request.param == "local":
        ctx, folder = ToolContext(workspace=workspace, settings=settings), workspace
    elif request.param == "ssh":
        pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")
        s = request.getfixturevalue("ssh_settings")
        ctx, folder = ToolContext(workspace=workspace, settings=s), request.getfixturevalue("remote_ws")
    else:
        s = request.getfixturevalue("container_settings")
        ctx, folder = ToolContext(workspace=workspace, settings=s), workspace
    yield ctx, folder
    if ctx.backend is not None:
        ctx.backend.close()


def test_files_and_commands(where: tuple[ToolContext, Path]) -> None:
    ctx, folder = where
    assert backend_of(ctx).name == ctx.settings.backends.use  # the configured one, opened from the settings
    files.write_file(ctx, "src/calc.sh", "echo $((6 * 7))\n")
    assert (folder / "src" / "calc.sh").read_text() == "echo $((6 * 7))\n"
    assert "1|echo $((6 * 7))" in files.read_file(ctx, "src/calc.sh")
    files.patch(ctx, "src/calc.sh", "6 * 7", "6 * 7 + 1")
    assert "src/calc.sh:1:echo $((6 * 7 + 1))" in files.search_files(ctx, "echo", ".")
    out = terminal.terminal(ctx, "sh src/calc.sh; echo made > made.txt")
    assert out.startswith("exit=0") and "43" in out
    assert (folder / "made.txt").read_text() == "made\n"  # a command's writes land in the same workspace
    assert terminal.terminal(ctx, "exit 7").startswith("exit=7")


def test_a_command_is_killed_at_its_timeout(where: tuple[ToolContext, Path]) -> None:
    ctx, _folder = where
    started = time.monotonic()
    out = terminal.terminal(ctx, "sleep 20", timeout=1)
    assert out.startswith("exit=-9\n[killed after 1s]") and time.monotonic() - started < 10


def test_paths_out_of_the_workspace_are_refused(where: tuple[ToolContext, Path], tmp_path: Path) -> None:
    ctx, folder = where
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("s3cret")
    (folder / "link").symlink_to(secret.parent)
    for path in ("link/secret.txt", "../elsewhere/secret.txt", str(secret)):
        with pytest.raises(ToolError) as e:
            files.read_file(ctx, path)
        assert "s3cret" not in str(e.value)
    with pytest.raises(ToolError):
        files.write_file(ctx, "link/planted.txt", "x")
    assert not (secret.parent / "planted.txt").exists()
