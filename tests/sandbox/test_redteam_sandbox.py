"""Red-team attempts against the sandbox, per backend (frozen before the defences were built; see issue 13):
host unix sockets, total disk, total memory and processes, /dev/shm, unattended runs without isolation, git."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from grove.sandbox import Limits, make_scratch, run

PY = "/usr/bin/python3"
CONNECT = (
    "import socket, sys\n"
    "try:\n s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1].replace('@', chr(0), 1)); print('CONNECTED')\n"
    "except OSError as e: print('REFUSED', e.errno)\n"
)


def _reachable_dir() -> Path:
    """A host temp dir every uid may traverse, so only the sandbox (not file modes) can keep a run out."""
    path = Path(tempfile.mkdtemp(prefix="grove-redteam-"))
    path.chmod(0o755)
    return path


@pytest.fixture
def open_dir() -> Iterator[Path]:
    path = _reachable_dir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _listen(path: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(path.replace("@", "\0", 1))
    server.listen(8)
    if not path.startswith("@"):
        os.chmod(path, 0o777)  # connect() needs write permission on the socket: grant it to every uid
    return server


def _connect(backend: str, workspace: Path, target: str) -> str:
    r = run([PY, "-c", CONNECT, target], workspace, Limits(timeout=10), backend=backend)
    assert "CONNECTED" in r.stdout or "REFUSED" in r.stdout, r.output
    return r.stdout.strip()


def _usage(path: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file() and not p.is_symlink())


# --- host unix sockets ---------------------------------------------------------------------------------------


def _assert_blocked_unless_rlimit(backend: str, workspace: Path, address: str) -> None:
    """A host process listens at `address`; from the sandbox only rlimit (the control: no isolation) connects."""
    server = _listen(address)
    try:
        seen = _connect(backend, workspace, address)
    finally:
        server.close()
    if backend == "rlimit":
        assert seen == "CONNECTED"
    else:
        assert seen.startswith("REFUSED"), seen


def test_host_unix_socket_in_a_readable_temp_dir(backend: str, workspace: Path, open_dir: Path) -> None:
    _assert_blocked_unless_rlimit(backend, workspace, str(open_dir / "agent.sock"))


def test_host_unix_socket_in_the_workspace_parent(backend: str, open_dir: Path) -> None:
    workspace = make_scratch(open_dir)
    _assert_blocked_unless_rlimit(backend, workspace, str(open_dir / "docker.sock"))


def test_host_abstract_unix_socket(backend: str, workspace: Path) -> None:
    name = f"@grove-redteam-{os.getpid()}-{backend}"
    _assert_blocked_unless_rlimit(backend, workspace, name)


def test_no_host_socket_is_visible_under_bwrap(backend: str, workspace: Path) -> None:
    if backend != "bwrap":
        pytest.skip(
            "only bubblewrap builds its own file tree (Landlock sees the host's and blocks AF_UNIX instead)"
        )
    code = (
        "import os, stat\nfound = []\nfor root, dirs, files in os.walk('/'):\n"
        " if root in ('/proc', '/sys'): dirs[:] = []; continue\n"
        " for f in files:\n  p = os.path.join(root, f)\n"
        "  try:\n   if stat.S_ISSOCK(os.lstat(p).st_mode): found.append(p)\n  except OSError: pass\n"
        "print(found)\n"
    )
    r = run([PY, "-c", code], workspace, Limits(timeout=30), backend=backend)
    assert r.stdout.strip() == "[]", r.output


def test_socketpair_still_works(backend: str, workspace: Path) -> None:
    code = "import socket\na, b = socket.socketpair()\na.send(b'hi')\nprint(b.recv(2).decode())\n"
    r = run([PY, "-c", code], workspace, backend=backend)
    assert r.stdout == "hi\n", r.output


# --- total disk, memory, processes ---------------------------------------------------------------------------


def test_total_disk_is_capped_across_files(backend: str, workspace: Path) -> None:
    # 32 files of 16 MB (each under the per-file limit) against a 16 MB total: 512 MB if nothing stops it. At full
    # page-cache speed (GB/s) the overshoot is whatever lands between two polls, which on a fast or busy machine is
    # tens to hundreds of MB (CI saw 183 MB): so here only that it was stopped, and before the end.
    code = (
        "import sys\nfor i in range(32):\n"
        " with open(f'fill{i}', 'wb') as f:\n  for _ in range(16): f.write(b'x' * (1 << 20))\n"
        "print('done')\n"
    )
    r = run([PY, "-c", code], workspace, Limits(timeout=60, file_size_mb=16, disk_mb=16), backend=backend)
    assert "done" not in r.stdout, r.output
    assert r.exit_code == -9 and any("disk" in n for n in r.notes), (r.exit_code, r.notes)
    assert _usage(workspace) < 512 * (1 << 20)


def test_total_disk_cap_stops_a_paced_writer_near_the_cap(backend: str, workspace: Path) -> None:
    # At a bounded rate (1 MB per 5 ms, at most 200 MB/s) the watcher must stop the run close to the cap: the
    # overshoot is the rate times the poll interval plus the supervisor's scheduling delay, not the machine's speed.
    code = (
        "import time\nfor i in range(64):\n"
        " with open(f'fill{i}', 'wb') as f:\n  for _ in range(4): f.write(b'x' * (1 << 20)); f.flush(); time.sleep(0.005)\n"
        "print('done')\n"
    )
    r = run([PY, "-c", code], workspace, Limits(timeout=60, file_size_mb=16, disk_mb=16), backend=backend)
    assert "done" not in r.stdout, r.output
    assert r.exit_code == -9 and any("disk" in n for n in r.notes), (r.exit_code, r.notes)
    assert _usage(workspace) < 96 * (1 << 20)  # the cap is 16 MB; 256 MB if nothing stopped it


def test_disk_under_the_cap_is_untouched(backend: str, workspace: Path) -> None:
    code = "open('small', 'wb').write(b'x' * (4 << 20)); print('done')"
    r = run([PY, "-c", code], workspace, Limits(disk_mb=16), backend=backend)
    assert r.stdout == "done\n" and r.exit_code == 0, r.output
    assert not any("disk" in n for n in r.notes)


def test_dev_shm_is_not_an_unbounded_disk(backend: str, workspace: Path) -> None:
    if backend == "rlimit":
        pytest.skip("the rlimit backend shares the host's /dev/shm (reported as 'no isolation')")
    script = "dd if=/dev/zero of=/dev/shm/fill bs=1M count=64 2>&1; echo x > /dev/grove-x && echo WROTE-DEV"
    r = run(["/bin/sh", "-c", script], workspace, Limits(timeout=20, tmp_size_mb=4), backend=backend)
    assert "64+0 records out" not in r.stdout, r.output
    assert "WROTE-DEV" not in r.stdout, r.output


def _needs_cgroups() -> None:
    from grove.sandbox import cgroups

    why = cgroups.unavailable_reason()
    if why:
        pytest.skip(f"no total memory/process cap here: {why}")


def test_total_memory_is_capped_across_processes(backend: str, workspace: Path) -> None:
    _needs_cgroups()
    # three processes of 64 MB each, every one under the per-process limit, against a 96 MB total
    code = (
        "import os, sys, time\npids = []\nfor _ in range(3):\n pid = os.fork()\n"
        " if pid == 0:\n  b = b'x' * (64 << 20); print('held', flush=True); time.sleep(1); print('kept', flush=True)\n"
        "  os._exit(0)\n"
        " pids.append(pid)\nfor p in pids: os.waitpid(p, 0)\n"
    )
    r = run(
        [PY, "-c", code], workspace, Limits(timeout=20, memory_mb=512, total_memory_mb=96), backend=backend
    )
    # the kernel may kill a process after it printed "held": what counts is that not all three kept it
    assert r.stdout.count("held") > 0 and r.stdout.count("kept") < 3, r.output


def test_total_processes_are_capped(backend: str, workspace: Path) -> None:
    _needs_cgroups()
    code = (
        "import os, time\nn = 0\nfor _ in range(200):\n try: pid = os.fork()\n except OSError: break\n"
        " if pid == 0: time.sleep(3); os._exit(0)\n n += 1\nprint('forked', n)\n"
    )
    limits = Limits(timeout=20, max_processes=4096, total_processes=24)
    r = run([PY, "-c", code], workspace, limits, backend=backend)
    assert r.stdout.startswith("forked"), r.output
    assert int(r.stdout.split()[1]) < 24, r.output


# --- no isolation, nobody to ask -----------------------------------------------------------------------------


def test_rlimit_refuses_unattended_runs(workspace: Path) -> None:
    r = run(["/bin/sh", "-c", "touch ran"], workspace, backend="rlimit", unattended=True)
    assert r.exit_code != 0 and not (workspace / "ran").exists()
    assert "--allow-unisolated" in r.output and "security.allow_unisolated" in r.output


def test_rlimit_runs_unattended_only_when_the_risk_is_accepted(workspace: Path) -> None:
    r = run(
        ["/bin/sh", "-c", "touch ran"], workspace, backend="rlimit", unattended=True, allow_unisolated=True
    )
    assert r.exit_code == 0 and (workspace / "ran").exists(), r.output
    assert any("no isolation" in n for n in r.notes)


def test_attended_rlimit_runs_and_isolated_backends_never_refuse(backend: str, workspace: Path) -> None:
    r = run(["/bin/sh", "-c", "echo ran"], workspace, backend=backend, unattended=backend != "rlimit")
    assert r.stdout == "ran\n", r.output


def test_refusal_message_names_the_risk_and_the_fix() -> None:
    from grove.sandbox import refusal_for_unattended
    from grove.sandbox.backend import BackendInfo

    weak = BackendInfo("rlimit", "no bwrap, no Landlock")
    message = refusal_for_unattended(weak, allow_unisolated=False)
    assert message and "no isolation" in message.lower() and "bubblewrap" in message
    assert refusal_for_unattended(weak, allow_unisolated=True) is None
    assert refusal_for_unattended(BackendInfo("landlock", "x"), allow_unisolated=False) is None


# --- git -----------------------------------------------------------------------------------------------------


def _git_ok(backend: str, workspace: Path, script: str) -> str:
    r = run(["/bin/sh", "-c", f"set -e\n{script}"], workspace, Limits(timeout=30), backend=backend)
    assert r.exit_code == 0, r.output
    return r.stdout


def test_git_round_trip_across_runs(backend: str, workspace: Path) -> None:
    if shutil.which("git", path="/usr/bin:/bin") is None:
        pytest.skip("git is not installed")
    out = _git_ok(
        backend,
        workspace,
        "git init -q && echo a > f && git add f && git commit -qm one && git log --oneline && "
        "echo b >> f && git diff --stat && git status --short",
    )
    assert "one" in out and "1 file changed" in out and " M f" in out
    out = _git_ok(
        backend, workspace, "git commit -qam two && git log --oneline | wc -l && git status --short"
    )
    assert out.split() == ["2"]


def test_git_in_a_repo_the_host_made(backend: str, workspace: Path) -> None:
    git = shutil.which("git", path="/usr/bin:/bin")
    if git is None:
        pytest.skip("git is not installed")
    # the host side too: as root, make_scratch's folder belongs to the sandbox group, not to root
    ident = ["-c", "user.name=host", "-c", "user.email=host@example.invalid", "-c", "safe.directory=*"]
    subprocess.run([git, *ident, "init", "-q"], cwd=workspace, check=True)
    (workspace / "f").write_text("a\n")
    subprocess.run([git, *ident, "add", "f"], cwd=workspace, check=True)
    subprocess.run([git, *ident, "commit", "-qm", "host"], cwd=workspace, check=True)
    if os.geteuid() == 0:  # as root the sandbox is another uid: let its group write, as the README says
        subprocess.run(["chgrp", "-R", "64055", str(workspace)], check=True)
        subprocess.run(["chmod", "-R", "g+rwX", str(workspace)], check=True)
    out = _git_ok(
        backend,
        workspace,
        "git status --short && git log --oneline && echo b >> f && git diff && git commit -qam s",
    )
    assert "host" in out and "+b" in out


def test_system_gitconfig_is_readable(backend: str, workspace: Path) -> None:
    if not os.path.isfile("/etc/gitconfig"):
        pytest.skip("this host has no /etc/gitconfig")
    r = run(["/bin/cat", "/etc/gitconfig"], workspace, backend=backend)
    assert r.stdout == Path("/etc/gitconfig").read_text(), r.output


# --- the callers pass "nobody can be asked" down ---------------------------------------------------------------


def test_terminal_tool_refuses_unattended_without_isolation(workspace: Path) -> None:
    from grove.security.approval.policy import SafetyPolicy
    from grove.tools.context import ToolContext
    from grove.tools.terminal import terminal

    policy = SafetyPolicy(allow_terminal=True, unattended=True, sandbox="rlimit")
    out = terminal(ToolContext(workspace=workspace, policy=policy), "touch ran")
    assert "--allow-unisolated" in out and not (workspace / "ran").exists()
    attended = SafetyPolicy(allow_terminal=True, unattended=False, sandbox="rlimit")
    assert terminal(ToolContext(workspace=workspace, policy=attended), "touch ran").startswith("exit=0")
    assert (workspace / "ran").exists()


def test_code_skill_tests_refuse_unattended_without_isolation() -> None:
    from grove.codeskills.sandboxed import run_tests

    code = "def solve(x: int) -> int:\n    return x + 1\n"
    tests = "from skill import solve\n\ndef test_one():\n    assert solve(1) == 2\n"
    refused = run_tests(code, tests, backend="rlimit", unattended=True)
    assert not refused.ok and "--allow-unisolated" in refused.output
    accepted = run_tests(code, tests, backend="rlimit", unattended=True, allow_unisolated=True)
    assert accepted.ok, accepted.explain()
