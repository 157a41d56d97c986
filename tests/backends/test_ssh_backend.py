"""The SSH backend against a real OpenSSH server on 127.0.0.1: commands, file tools over SFTP, host keys, drops."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")

from tests.backends.sshd import Sshd

from grove.backends.base import BackendError
from grove.backends.open import open_backend
from grove.backends.ssh.backend import SshBackend
from grove.config import Settings
from grove.security.files.confine import Refused
from grove.tools import files, terminal
from grove.tools.context import ToolContext, backend_of
from grove.tools.registry import ToolError


@pytest.fixture
def backend(ssh_settings: Settings, remote_ws: Path) -> SshBackend:
    b = open_backend(ssh_settings.backends.use, ssh_settings)
    assert isinstance(b, SshBackend)
    yield b
    b.close()


@pytest.fixture
def ctx(ssh_settings: Settings, workspace: Path, backend: SshBackend) -> ToolContext:
    return ToolContext(workspace=workspace, settings=ssh_settings, backend=backend)


def test_commands_run_in_the_remote_workspace(backend: SshBackend, remote_ws: Path) -> None:
    result = backend.run("pwd; echo err >&2; exit 3", timeout=10)
    assert result.exit_code == 3
    assert result.stdout.splitlines() == [str(remote_ws.resolve()), "err"]
    assert result.backend == backend.name and not result.timed_out


def test_a_command_past_its_timeout_is_killed(backend: SshBackend) -> None:
    started = time.monotonic()
    result = backend.run("echo started; sleep 30", timeout=1)
    assert result.timed_out and "started" in result.stdout
    assert time.monotonic() - started < 8


def test_output_is_capped(ssh_settings: Settings, remote_ws: Path) -> None:
    ssh_settings.backends.output_bytes = 4096
    b = open_backend(ssh_settings.backends.use, ssh_settings)
    try:
        result = b.run("head -c 300000 /dev/zero | tr '\\0' x", timeout=10)
    finally:
        b.close()
    assert len(result.stdout) == 4096 and result.truncated
    assert any("295904 bytes" in n for n in result.notes)


def test_file_tools_read_write_patch_search_remotely(ctx: ToolContext, remote_ws: Path) -> None:
    assert "wrote" in files.write_file(ctx, "pkg/mod.py", "def f():\n    return 1\n")
    assert (remote_ws / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"
    assert not (ctx.workspace / "pkg").exists()  # nothing lands on the local machine
    assert "2|    return 1" in files.read_file(ctx, "pkg/mod.py")
    files.patch(ctx, "pkg/mod.py", "return 1", "return 2")
    assert "return 2" in (remote_ws / "pkg" / "mod.py").read_text()
    assert "pkg/mod.py:2:    return 2" in files.search_files(ctx, "return", ".")
    assert files.search_files(ctx, "", ".", glob="*.py").strip().endswith("pkg/mod.py")
    assert "exit=0" in terminal.terminal(ctx, "python3 -c 'import pkg.mod as m; print(m.f())'")


def test_a_write_is_atomic_and_keeps_the_mode(ctx: ToolContext, remote_ws: Path) -> None:
    script = remote_ws / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    files.read_file(ctx, "run.sh")
    files.write_file(ctx, "run.sh", "echo new\n")
    assert script.read_text() == "echo new\n" and (script.stat().st_mode & 0o777) == 0o755
    assert [p.name for p in remote_ws.iterdir()] == ["run.sh"]  # no temporary file left behind


def test_confinement_holds_against_links_and_dotdot(
    ctx: ToolContext, remote_ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret")
    (remote_ws / "out").symlink_to(outside)
    (remote_ws / "file-out").symlink_to(outside / "secret.txt")
    (remote_ws / "inner").mkdir()
    (remote_ws / "inner" / "ok.txt").write_text("fine")
    (remote_ws / "in").symlink_to(remote_ws / "inner")
    for path in ("out/secret.txt", "file-out", "../outside/secret.txt", "inner/../../outside/secret.txt",
                 str(outside / "secret.txt"), "~/x"):  # fmt: skip
        with pytest.raises(ToolError) as e:
            files.read_file(ctx, path)
        assert "s3cret" not in str(e.value)
    with pytest.raises(ToolError, match="leading out"):
        files.write_file(ctx, "out/new.txt", "x")
    with pytest.raises(ToolError, match=r"'\.\.' is not allowed"):
        files.write_file(ctx, "inner/../../outside/new.txt", "x")
    assert not (outside / "new.txt").exists()
    assert "fine" in files.read_file(ctx, "in/ok.txt")  # a link that stays inside is followed
    listing = files.search_files(ctx, "s3cret", ".")
    assert (
        "s3cret" not in listing and "secret.txt" not in listing
    )  # links are listed as unsearched, never entered


def test_a_changed_host_key_is_refused(ssh_settings: Settings, sshd: Sshd, tmp_path: Path) -> None:
    from tests.backends.sshd import _keygen

    other = _keygen(tmp_path / "impostor")
    wrong = tmp_path / "known_hosts"
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {other}\n")
    ssh_settings.backends.known_hosts = str(wrong)
    b = open_backend(ssh_settings.backends.use, ssh_settings)
    try:
        with pytest.raises(BackendError, match="host key is not the one in known_hosts"):
            b.run("true", timeout=5)
        wrong.write_text("")  # unknown host: refused too, never accepted
        with pytest.raises(BackendError, match="never accepts a host key"):
            b.run("true", timeout=5)
        assert wrong.read_text() == ""
    finally:
        b.close()


def test_the_tools_say_what_failed(
    ssh_settings: Settings, sshd: Sshd, tmp_path: Path, workspace: Path
) -> None:
    ssh_settings.backends.known_hosts = str(tmp_path / "empty")
    (tmp_path / "empty").write_text("")
    c = ToolContext(workspace=workspace, settings=ssh_settings)  # opened from config, as a session does
    with pytest.raises(ToolError, match="known_hosts"):
        terminal.terminal(c, "true")
    with pytest.raises(ToolError, match="known_hosts"):
        files.read_file(c, "x")
    c.backend.close()  # type: ignore[union-attr]


def test_a_dropped_connection_is_recovered(backend: SshBackend, sshd: Sshd, ctx: ToolContext) -> None:
    assert backend.run("echo one", timeout=5).stdout == "one\n"
    assert backend.connects == 1
    assert sshd.kill_sessions() >= 1
    time.sleep(0.2)
    assert backend.run("echo two", timeout=5).stdout == "two\n"
    assert backend.connects == 2
    sshd.kill_sessions()
    time.sleep(0.2)
    assert "wrote" in files.write_file(ctx, "after-drop.txt", "ok")  # file acts reconnect as well
    sshd.kill_sessions()
    sshd.stop()  # the whole server goes (its sessions would outlive the listener: killed first)
    with pytest.raises(BackendError, match=r"cannot connect|dropped"):
        backend.run("true", timeout=5)
    sshd.start()
    assert backend.run("cat after-drop.txt", timeout=5).stdout == "ok"


def test_a_missing_remote_workspace_is_a_clear_error(ssh_settings: Settings, sshd: Sshd) -> None:
    b = open_backend(f"ssh:grove-test:{sshd.dir}/nowhere", ssh_settings)
    try:
        with pytest.raises(BackendError, match="mkdir -p"):
            b.run("true", timeout=5)
    finally:
        b.close()


@pytest.mark.skipif(
    not shutil.which("bwrap"), reason="the host has no bubblewrap (apt-get install bubblewrap)"
)
def test_remote_commands_run_in_the_hosts_bubblewrap(
    backend: SshBackend, sshd: Sshd, remote_ws: Path
) -> None:
    outside = Path(f"/var/tmp/grove-escape-{sshd.port}")  # not under /tmp, which the sandbox makes private
    result = backend.run(
        f"echo ok > in-ws.txt; touch {outside}; exec 3<>/dev/tcp/127.0.0.1/{sshd.port} && echo reached",
        timeout=10,
    )
    assert backend.bwrap is True
    assert (remote_ws / "in-ws.txt").read_text() == "ok\n"  # the workspace is writable
    escaped = outside.exists()
    outside.unlink(missing_ok=True)
    assert not escaped and "Read-only file system" in result.stdout  # the rest is not
    assert "reached" not in result.stdout  # no network: the session did not allow it


def test_remote_sandbox_none_runs_commands_bare(ssh_settings: Settings, sshd: Sshd, remote_ws: Path) -> None:
    ssh_settings.backends.remote_sandbox = "none"
    b = open_backend(ssh_settings.backends.use, ssh_settings)
    outside = sshd.dir / "written-bare"
    try:
        assert b.run(f"touch {outside}", timeout=10).exit_code == 0
    finally:
        b.close()
    assert outside.exists()
    outside.unlink()


def test_unattended_unsandboxed_commands_need_the_opt_in(ssh_settings: Settings, remote_ws: Path) -> None:
    from grove.security.approval.policy import SafetyPolicy

    ssh_settings.backends.remote_sandbox = "none"
    policy = SafetyPolicy(unattended=True)
    b = open_backend(ssh_settings.backends.use, ssh_settings, policy=lambda: policy)
    try:
        refused = b.run("echo ran > ran.txt", timeout=10)
        assert (
            refused.refused and "NOT sandboxed" in refused.stdout and "--allow-unisolated" in refused.stdout
        )
        assert not (remote_ws / "ran.txt").exists()
        policy.allow_unisolated = True
        assert b.run("echo ran > ran.txt", timeout=10).exit_code == 0
    finally:
        b.close()


def test_tool_calls_from_several_threads_share_one_connection(backend: SshBackend) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda i: backend.run(f"echo {i}", timeout=10).stdout, range(8)))
    assert outs == [f"{i}\n" for i in range(8)]
    assert backend.connects == 1


def test_an_unresolvable_command_runs_unattended_on_an_ssh_host_only_isolated_there_and_checkpointed(
    ssh_settings: Settings, workspace: Path
) -> None:
    """Locally it may (the sandbox confines it, a checkpoint can undo it). On the host what isolates is the host's
    bubblewrap, and the checkpoint must be of the remote workspace (the session's are: grove.backends.ssh.tree)."""
    from grove.security.approval.policy import SafetyPolicy
    from grove.tools.terminal import approve_command

    command = "$(cat cmd.txt) --all"  # what runs is only known at run time

    def judged(ready: bool, remote_sandbox: str) -> tuple[str | None, bool]:
        ssh_settings.backends.remote_sandbox = remote_sandbox  # type: ignore[assignment]
        policy = SafetyPolicy(
            allow_terminal=True,
            unattended=True,
            sandbox="bwrap",  # this machine's: it does not count on the host
            checkpoint_ready=(lambda: True) if ready else None,
        )
        ctx = ToolContext(workspace=workspace, policy=policy, settings=ssh_settings)
        try:
            return approve_command(ctx, "terminal", {"command": command}), bool(ctx.backend.sandboxed)  # type: ignore[union-attr]
        finally:
            ctx.backend.close()  # type: ignore[union-attr]

    local = SafetyPolicy(allow_terminal=True, unattended=True, sandbox="bwrap", checkpoint_ready=lambda: True)
    assert (
        approve_command(ToolContext(workspace=workspace, policy=local), "terminal", {"command": command})
        is None
    )
    refusal, _ = judged(True, "none")
    assert refusal is not None and "does not isolate" in refusal
    refusal, isolated = judged(False, "auto")
    assert refusal is not None and ("no checkpoint" in refusal if isolated else "does not isolate" in refusal)
    refusal, isolated = judged(True, "auto")
    assert (refusal is None) == isolated  # allowed exactly when the host's bubblewrap confines it


def test_command_paths_are_judged_against_the_remote_workspace(
    ssh_settings: Settings, workspace: Path, remote_ws: Path
) -> None:
    """A delete inside the local folder is not inside the workspace when the command runs on the SSH host."""
    from grove.security.approval.policy import SafetyPolicy
    from grove.tools.terminal import approve_command

    policy = SafetyPolicy(
        allow_terminal=True, unattended=True, sandbox="bwrap", checkpoint_ready=lambda: True
    )
    local = ToolContext(workspace=workspace, policy=policy)
    remote = ToolContext(workspace=workspace, policy=policy, settings=ssh_settings)
    try:
        for ctx, inside in ((local, workspace), (remote, remote_ws.resolve())):
            assert approve_command(ctx, "terminal", {"command": f"rm -rf {inside}/build"}) is None
        assert approve_command(remote, "terminal", {"command": f"rm -rf {workspace}/build"}) is not None
    finally:
        remote.backend.close()  # type: ignore[union-attr]


def test_a_folder_swapped_for_a_link_after_the_check_is_caught(
    ctx: ToolContext, remote_ws: Path, tmp_path: Path
) -> None:
    """The race SFTP leaves open, forced: the path is checked, then a folder in it becomes a link out."""
    outside = tmp_path / "out-there"
    outside.mkdir()
    (outside / "f.txt").write_text("outside")
    (remote_ws / "d").mkdir()
    (remote_ws / "d" / "f.txt").write_text("inside")
    with backend_of(ctx).files() as fs:
        spot = fs.locate("d/f.txt", write=True)
        (remote_ws / "d").rename(remote_ws / "d-old")
        (remote_ws / "d").symlink_to(outside)
        with pytest.raises(Refused, match="changed while it was being used"):
            fs.read(spot, "d/f.txt")
        with pytest.raises(Refused, match="changed while it was being used"):
            fs.write(spot, "d/f.txt", b"planted")
    assert (outside / "f.txt").read_text() == "outside"
    assert [p.name for p in outside.iterdir()] == ["f.txt"]  # no temporary file left there either


def test_a_link_swapped_in_for_the_open_and_back_is_caught(
    ctx: ToolContext, remote_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race forced at its narrowest: a link to a file outside is swapped in just for the open, and the file
    put back before the path is checked again. The handle's own stat is not the path's: refused, nothing shown."""
    import asyncssh

    secret = tmp_path / "secret.txt"
    secret.write_text("the remote user's secret\n")
    (remote_ws / "a.txt").write_text("inside\n")
    real_open = asyncssh.SFTPClient.open

    def swapping_open(self: asyncssh.SFTPClient, path: object, *args: object, **kw: object) -> object:
        opening = real_open(self, path, *args, **kw)
        if not str(path).endswith("a.txt"):
            return opening

        class Swapped:
            async def __aenter__(self) -> object:
                (remote_ws / "a.txt").rename(remote_ws / "a.keep")
                (remote_ws / "a.txt").symlink_to(secret)
                try:
                    return await opening.__aenter__()
                finally:  # put back at once: the path resolves to itself again
                    (remote_ws / "a.txt").unlink()
                    (remote_ws / "a.keep").rename(remote_ws / "a.txt")

            async def __aexit__(self, *exc: object) -> object:
                return await opening.__aexit__(*exc)

        return Swapped()

    monkeypatch.setattr(asyncssh.SFTPClient, "open", swapping_open)
    with pytest.raises(ToolError, match="changed while it was being used"):
        files.read_file(ctx, "a.txt")
    monkeypatch.setattr(asyncssh.SFTPClient, "open", real_open)
    assert "inside" in files.read_file(ctx, "a.txt")
