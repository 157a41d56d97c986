"""Containment, per backend: network, secrets of the host, writes outside the workspace, resource bombs."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from grove.sandbox import Limits, run

PY = "/usr/bin/python3"


def needs_isolation(backend: str, what: str) -> None:
    if backend == "rlimit":
        pytest.skip(f"the rlimit backend does not isolate {what} (reported as 'no isolation')")


def needs_private_tmp(backend: str) -> None:
    if backend != "bwrap":
        pytest.skip(
            f"{backend} has no private /tmp (Landlock: /tmp is simply not writable, see the write test)"
        )


def needs_uid_drop(backend: str) -> None:
    if backend == "rlimit" and os.geteuid() != 0:
        pytest.skip("the rlimit backend confines reads only through a uid drop, which needs root")


def _marker_alive(marker: str) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


def _gone(marker: str) -> bool:
    """Process teardown after SIGKILL is asynchronous: poll a bounded while for it to finish."""
    for _ in range(100):
        if not _marker_alive(marker):
            return True
        time.sleep(0.05)
    return False


def test_runs_a_command_and_captures_output(backend: str, workspace: Path) -> None:
    r = run(
        [PY, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
        workspace,
        backend=backend,
    )
    assert (r.exit_code, r.stdout, r.stderr, r.backend) == (3, "out\n", "err\n", backend)


def test_never_runs_as_root(backend: str, workspace: Path) -> None:
    r = run([PY, "-c", "import os; print(os.getuid(), os.geteuid())"], workspace, backend=backend)
    assert r.ok, r.output
    assert "0" not in r.stdout.split()


def test_connect_to_host_loopback_fails(backend: str, workspace: Path) -> None:
    needs_isolation(backend, "the network")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted: list[object] = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('CONNECTED')"
    r = run([PY, "-c", code], workspace, Limits(timeout=10), backend=backend)
    server.close()
    assert "CONNECTED" not in r.stdout
    assert r.exit_code != 0 and "Error" in r.stderr


def test_no_route_outside(backend: str, workspace: Path) -> None:
    needs_isolation(backend, "the network")
    # 192.0.2.1 is TEST-NET-1: never routed on the internet; inside the sandbox no interface but lo exists.
    code = (
        "import socket\nprint(open('/proc/net/dev').read())\n"
        "try:\n socket.create_connection(('192.0.2.1', 80), timeout=2)\nexcept OSError as e: print('ERR', e)\n"
        "try:\n socket.getaddrinfo('example.com', 80)\nexcept OSError as e: print('DNSERR', e)\n"
    )
    r = run([PY, "-c", code], workspace, Limits(timeout=10), backend=backend)
    devices = [ln.split(":")[0].strip() for ln in r.stdout.splitlines() if ":" in ln and "|" not in ln]
    if backend == "bwrap":
        assert devices == ["lo"], r.output
    else:  # the host's interfaces are visible, but no inet socket can be created
        assert "ERR [Errno 13] Permission denied" in r.stdout, r.output
    assert "ERR" in r.stdout and "DNSERR" in r.stdout


def _world_readable(path: str) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o004)
    except OSError:
        return False


@pytest.mark.parametrize("path", ["/root", "/etc/shadow", str(Path.home()), "/home"])
def test_private_host_paths_unreadable(backend: str, workspace: Path, path: str) -> None:
    needs_uid_drop(backend)
    code = (
        "import os, sys\np = sys.argv[1]\n"
        "try:\n print(os.listdir(p) if os.path.isdir(p) else open(p).read()[:20])\n"
        "except OSError as e: print('DENIED', e.errno)\n"
    )
    if backend == "rlimit" and _world_readable(path):  # bwrap and Landlock hide it whatever its mode
        pytest.skip(
            f"{path} is world-readable on this host; the rlimit backend only hides what the uid can't read"
        )
    r = run([PY, "-c", code, path], workspace, backend=backend)
    assert "DENIED" in r.stdout or r.stdout.strip() == "[]", r.output


def test_parent_environment_invisible(backend: str, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    needs_uid_drop(backend)
    monkeypatch.setenv("GROVE_CANARY_API_KEY", "canary-7f3a9b")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-7f3a9b")
    code = (
        "import os, glob\nseen = repr(dict(os.environ))\n"
        f"for p in glob.glob('/proc/*/environ') + ['/proc/{os.getpid()}/environ', '/proc/1/environ']:\n"
        " try: seen += open(p, 'rb').read().decode(errors='replace')\n except OSError: pass\n"
        "print('canary-7f3a9b' in seen)\n"
    )
    r = run(
        [PY, "-c", code],
        workspace,
        env={"OPENAI_API_KEY": "sk-canary-7f3a9b", "OK_VAR": "1"},
        backend=backend,
    )
    assert r.stdout.strip() == "False", r.output


def test_writes_outside_workspace_fail(backend: str, workspace: Path, tmp_path: Path) -> None:
    needs_uid_drop(backend)
    outside = tmp_path / "outside.txt"
    targets = ["/usr/grove-escape", "/etc/grove-escape", str(outside)]
    code = (
        "import sys\nfor p in sys.argv[1:]:\n"
        " try:\n  open(p, 'w').write('x'); print('WROTE', p)\n except OSError as e: print('DENIED', p)\n"
        "open('inside.txt', 'w').write('ok')\n"
    )
    r = run([PY, "-c", code, *targets], workspace, backend=backend)
    assert "WROTE /usr" not in r.stdout and "WROTE /etc" not in r.stdout, r.output
    # bubblewrap's private /tmp may take the write; what matters is that the host never sees it
    assert (
        not outside.exists()
        and not Path("/usr/grove-escape").exists()
        and not Path("/etc/grove-escape").exists()
    )
    assert (workspace / "inside.txt").read_text() == "ok"


def test_private_tmp_does_not_reach_host(backend: str, workspace: Path) -> None:
    needs_private_tmp(backend)
    name = f"grove-sbx-tmp-{os.getpid()}"
    r = run(["/bin/sh", "-c", f"echo x > /tmp/{name} && cat /tmp/{name}"], workspace, backend=backend)
    assert r.stdout == "x\n"
    assert not Path(f"/tmp/{name}").exists()


def test_fork_bomb_is_contained(backend: str, workspace: Path) -> None:
    marker = f"forkbomb{os.getpid()}{backend}"
    code = f"import os, time\n# {marker}\nwhile True:\n try: os.fork()\n except OSError: time.sleep(0.01)\n"
    r = run([PY, "-c", code, marker], workspace, Limits(timeout=2, max_processes=32), backend=backend)
    assert r.timed_out and r.exit_code == -9
    assert _gone(marker), "fork bomb processes survived the run"


def test_shell_fork_bomb_is_contained(backend: str, workspace: Path) -> None:
    r = run(
        ["/bin/bash", "-c", "b(){ b|b& }; b; sleep 5"],
        workspace,
        Limits(timeout=2, max_processes=32),
        backend=backend,
    )
    assert r.exit_code is not None
    after = run(["/bin/sh", "-c", "echo alive"], workspace, backend=backend)
    assert after.stdout == "alive\n"


def test_memory_bomb_is_contained(backend: str, workspace: Path) -> None:
    code = "b = []\nwhile True: b.append(bytearray(50 * 1024 * 1024))\n"
    r = run([PY, "-c", code], workspace, Limits(timeout=20, memory_mb=256), backend=backend)
    assert r.exit_code != 0 and not r.timed_out
    assert "MemoryError" in r.stderr


def test_disk_filling_loop_is_contained(backend: str, workspace: Path) -> None:
    code = "f = open('big', 'wb')\nwhile True: f.write(b'x' * 1024 * 1024)\n"
    r = run([PY, "-c", code], workspace, Limits(timeout=20, file_size_mb=8), backend=backend)
    assert r.exit_code != 0
    assert (workspace / "big").stat().st_size <= 8 * 1024 * 1024


def test_tmp_is_size_capped(backend: str, workspace: Path) -> None:
    needs_private_tmp(backend)
    r = run(
        ["/bin/sh", "-c", "dd if=/dev/zero of=/tmp/fill bs=1M count=64; ls -l /tmp/fill"],
        workspace,
        Limits(timeout=20, tmp_size_mb=4),
        backend=backend,
    )
    assert "No space left" in r.output


def test_infinite_loop_is_killed(backend: str, workspace: Path) -> None:
    r = run([PY, "-c", "while True: pass"], workspace, Limits(timeout=1), backend=backend)
    assert r.timed_out and r.exit_code == -9


def test_cpu_limit_kills_a_spinner(backend: str, workspace: Path) -> None:
    r = run([PY, "-c", "while True: pass"], workspace, Limits(timeout=30, cpu_seconds=1), backend=backend)
    assert not r.timed_out and r.exit_code != 0


def test_setsid_grandchild_dies_on_timeout(backend: str, workspace: Path) -> None:
    marker = f"setsidchild{os.getpid()}{backend}"
    script = f"setsid /bin/sh -c 'exec -a {marker} sleep 300' & sleep 300"
    r = run(["/bin/bash", "-c", script], workspace, Limits(timeout=1), backend=backend)
    assert r.timed_out
    assert _gone(marker), "a setsid grandchild outlived the sandbox"


def test_escaped_child_holding_the_pipe_does_not_hang(backend: str, workspace: Path) -> None:
    marker = f"pipeholder{os.getpid()}{backend}"
    script = f"setsid /bin/sh -c 'exec -a {marker} sleep 300' & echo started"
    r = run(["/bin/bash", "-c", script], workspace, Limits(timeout=60), backend=backend)
    assert not r.timed_out and r.exit_code == 0 and r.stdout == "started\n"
    assert _gone(marker)


def test_output_is_bounded(backend: str, workspace: Path) -> None:
    r = run([PY, "-c", "print('y' * 100000)"], workspace, Limits(output_bytes=1000), backend=backend)
    assert r.truncated and len(r.stdout) == 1000


def test_bad_input_is_a_clear_error(workspace: Path) -> None:
    with pytest.raises(ValueError, match="non-empty list"):
        run("echo hi", workspace)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a directory"):
        run(["true"], workspace / "missing")
    with pytest.raises(ValueError, match="unknown sandbox backend"):
        run(["true"], workspace, backend="docker")
    with pytest.raises(ValueError, match="timeout"):
        Limits(timeout=0)


def test_concurrent_runs_do_not_kill_each_other(backend: str, workspace: Path) -> None:
    results: list[object] = []
    slow = threading.Thread(
        target=lambda: results.append(
            run(["/bin/sh", "-c", "sleep 1; echo slow"], workspace, backend=backend)
        )
    )
    slow.start()
    for _ in range(3):
        assert run(["/bin/true"], workspace, backend=backend).exit_code == 0
    slow.join(30)
    assert results and results[0].stdout == "slow\n"  # type: ignore[attr-defined]


def test_a_later_run_can_change_what_an_earlier_run_wrote(backend: str, workspace: Path) -> None:
    assert run(["/bin/sh", "-c", "mkdir -p d && echo 1 > d/f"], workspace, backend=backend).exit_code == 0
    r = run(["/bin/sh", "-c", "echo 2 >> d/f && rm d/f && rmdir d && echo ok"], workspace, backend=backend)
    assert r.stdout == "ok\n", r.output
