"""Seconds per tool call on each backend: local (the sandbox), SSH (Debian's sshd on 127.0.0.1, started here in a
temp dir with its own host key) and a container (podman on a busybox-static image built here) when the machine can
run one. Per backend: the first call (connect / container start) and the median of N calls per tool.

Per backend also a checkpoint of a 30-file workspace (the first, reading everything; the next, with nothing
changed) and an undo of one changed file, taken and restored through that backend.

Then a kanban run whose workers use the SSH backend: a dispatcher on a SQLite board whose backend is set to the
SSH host (`grove kanban backend ssh:...`, the workers' own config says local) starts `grove` workers (the script
model); each reads a file that exists only in the remote workspace and completes its task. Counted: tasks done,
seconds, and worker reads that returned the remote file's text.

Run: python benchmarks/backends.py [--calls 20] [--tasks 6]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.backends: the servers the tests use

from grove.config import Settings
from grove.tools import files, terminal
from grove.tools.context import ToolContext

if TYPE_CHECKING:
    from tests.backends.sshd import Sshd

TOOLS: dict[str, Callable[[ToolContext, int], str]] = {
    "terminal": lambda ctx, i: terminal.terminal(ctx, f"echo {i}"),
    "read": lambda ctx, i: files.read_file(ctx, "bench.txt"),
    "write": lambda ctx, i: files.write_file(ctx, "bench.txt", f"line {i}\n" * 50),
    "search": lambda ctx, i: files.search_files(ctx, "line", "."),
}


def shared_folder(path: Path) -> Path:
    """As root, file tools act as the sandbox group: the workspace must be group-writable (README)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(path, -1, 64_055)
        os.chmod(path, 0o2775)
    return path


def measure(name: str, settings: Settings, workspace: Path, calls: int) -> dict[str, float]:
    ctx = ToolContext(workspace=workspace, settings=settings)
    started = time.perf_counter()
    out = terminal.terminal(ctx, "true")
    first = time.perf_counter() - started
    assert out.startswith("exit=0"), out
    files.write_file(ctx, "bench.txt", "line\n")
    figures = {f"{name}_first_s": first}
    for tool, call in TOOLS.items():
        times = []
        for i in range(calls):
            t = time.perf_counter()
            call(ctx, i)
            times.append(time.perf_counter() - t)
        figures[f"{name}_{tool}_s"] = statistics.median(times)
    figures |= checkpoints(name, ctx)
    if ctx.backend is not None:
        ctx.backend.close()
    print(f"{name:>10}: first call {first:.3f} s; " + ", ".join(
        f"{tool} {figures[f'{name}_{tool}_s'] * 1000:.1f} ms" for tool in TOOLS
    ) + "; checkpoint first {:.3f} s, again {:.3f} s, undo {:.3f} s".format(
        *(figures[f"{name}_{k}_s"] for k in ("checkpoint_first", "checkpoint", "undo"))
    ))  # fmt: skip
    return figures


def checkpoints(name: str, ctx: ToolContext) -> dict[str, float]:
    """A checkpoint of the workspace through the backend (all read; then nothing changed) and an undo."""
    from grove.checkpoints.restore import last_turns, undo
    from grove.checkpoints.store import CheckpointStore
    from grove.tools.context import backend_of

    for i in range(30):
        files.write_file(ctx, f"tree/f{i:02}.txt", f"file {i}\n" * 20)
    time.sleep(2.1)  # older than the next scan: an SSH host's whole-second mtimes can vouch for them
    assert ctx.settings is not None
    store = CheckpointStore(ctx.settings.home, backend_of(ctx).tree(), ctx.settings.checkpoints)
    t = time.perf_counter()
    store.seal(store.take("bench", "first"))
    first = time.perf_counter() - t
    t = time.perf_counter()
    cp = store.take("bench", "again")
    again = time.perf_counter() - t
    files.write_file(ctx, "tree/f00.txt", "changed\n")
    store.seal(cp)
    t = time.perf_counter()
    plan = undo(store, last_turns(store, 1))
    took = time.perf_counter() - t
    assert plan.paths == ["tree/f00.txt"], plan.paths
    assert files.read_file(ctx, "tree/f00.txt").count("file 0") == 20
    return {f"{name}_checkpoint_first_s": first, f"{name}_checkpoint_s": again, f"{name}_undo_s": took}


WORKER = """- tool_calls: [{name: read_file, arguments: {path: remote-only.txt}}]
- tool_calls: [{name: kanban_complete, arguments: {summary: read the remote file}}]
- text: ok
"""
MARKER = "only-on-the-ssh-host-7f3a"


def kanban_over_ssh(tmp: Path, sshd: Sshd, tasks: int) -> dict[str, float]:
    """Workers of a dispatcher on this machine, their file tools on the SSH host."""
    from grove.kanban.open import open_board

    (sshd.remote_ws / "remote-only.txt").write_text(MARKER + "\n")
    db = tmp / "board.db"
    board = open_board(str(db))
    board.set_setting("backend", sshd.spec)  # the board's backend: every worker's tools act there
    ids = [board.add(f"read the remote file ({i})").id for i in range(tasks)]
    script = tmp / "worker.yaml"
    script.write_text(WORKER)
    home = tmp / "kanban-home"
    env = dict(
        os.environ,
        GROVE_HOME=str(home),
        GROVE_KANBAN_DB=str(db),
        GROVE_KANBAN_WORKSPACES=str(shared_folder(tmp / "kanban-ws")),
        GROVE_BACKENDS__SSH_CONFIG=str(sshd.ssh_config),
    )
    argv = [sys.executable, "-m", "grove", "kanban", "dispatch", "--loop", "--tick", "0.5", "-j", "3"]
    argv += ["-m", f"script:{script}", "--no-decompose", "--no-review"]
    started = time.monotonic()
    with open(tmp / "dispatch.log", "ab") as log:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        while time.monotonic() - started < 180 and len(board.tasks("done")) < len(ids):
            board.wait(0.2)
        elapsed = time.monotonic() - started
    finally:
        proc.terminate()
        proc.wait(30)
    done = len(board.tasks("done"))
    with sqlite3.connect(home / "state.db") as con:
        remote_reads = con.execute(
            "SELECT count(*) FROM messages WHERE role = 'tool' AND name = 'read_file' AND content LIKE ?",
            (f"%{MARKER}%",),
        ).fetchone()[0]
    print(f"kanban over ssh: {done}/{len(ids)} tasks done in {elapsed:.1f} s; {remote_reads} worker reads came "
          "from the remote workspace")  # fmt: skip
    return {
        "kanban_tasks": len(ids),
        "kanban_done": done,
        "kanban_s": elapsed,
        "kanban_remote_reads": remote_reads,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=6)
    args = parser.parse_args()
    os.umask(0o002)
    tmp = Path(tempfile.mkdtemp(prefix="grove-bench-backends-"))
    os.environ["GROVE_HOME"] = str(tmp / "home")
    figures: dict[str, float] = {}
    local = Settings()
    figures |= measure("local", local, shared_folder(tmp / "local-ws"), args.calls)

    from tests.backends.sshd import make_sshd, unavailable

    why = unavailable()
    if why is None:
        sshd = make_sshd(shared_folder(tmp / "sshd"))
        sshd.start()
        try:
            ssh = Settings()
            ssh.backends.ssh_config, ssh.backends.use = str(sshd.ssh_config), sshd.spec
            figures |= measure("ssh", ssh, shared_folder(tmp / "ssh-local-ws"), args.calls)
            figures |= kanban_over_ssh(tmp, sshd, args.tasks)
        finally:
            sshd.stop()
    else:
        print(f"ssh: skipped ({why})")

    from tests.backends.engines import IMAGE, find_engine

    engine, why = find_engine(tmp)
    if engine is not None:
        box = Settings()
        box.backends.use, box.backends.container.engine_args = f"{engine.name}:{IMAGE}", engine.args
        figures |= measure("container", box, shared_folder(tmp / "container-ws"), args.calls)
    else:
        print(f"container: skipped ({why})")
    print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
