"""Two hosts on one PostgreSQL board: two `grove kanban dispatch --loop` processes, each in a process tree of its
own (own session and process group, its workers under it) with its own host id (GROVE_HOST_ID). Work splits between
them; once a share of the tasks is done and host A holds running tasks, host A's whole tree (dispatcher and
workers) is SIGKILLed. Host B cannot check A's pids (another host): it must take A's tasks back when their leases
expire. Prints tasks per host, reclaims, duplicate completions (must be 0) and lost tasks (must be 0).

Run: python benchmarks/kanban_two_hosts.py [--tasks 40] [--workers 2] [--lease 6] [--kill-at 0.3] [--db URL]
(without --db a throwaway PostgreSQL cluster is started in a temp dir; needs initdb and psycopg).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

SCRIPT = """- tool_calls: [{name: kanban_complete, arguments: {summary: done by the script}}]
- text: ok
"""
HOSTS = ("host-a", "host-b")


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (Linux /proc), children first found first."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        ppid = int(text[text.rindex(")") + 2 :].split()[1])
        parents.setdefault(ppid, []).append(int(stat.parent.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def signal_host(proc: subprocess.Popen[bytes], sig: int) -> list[int]:
    """`sig` to a host's whole tree: the dispatcher's process group and each worker's (workers start sessions of
    their own, so a group signal to the dispatcher alone would miss them)."""
    os.killpg(proc.pid, signal.SIGSTOP)  # the dispatcher first: no new worker appears while we look
    victims = [proc.pid, *descendants(proc.pid)]
    for pid in victims:
        for send in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                send(pid, sig)
    return victims


def kill_host(proc: subprocess.Popen[bytes]) -> list[int]:
    victims = signal_host(proc, signal.SIGKILL)
    proc.wait()
    return victims


def start_host(
    host: str, url: str, script: Path, args: argparse.Namespace, log: Path
) -> subprocess.Popen[bytes]:
    # separate hosts have separate homes (state.db, logs) and workspaces; only the board is shared
    home = log.parent / host
    env = dict(
        os.environ,
        GROVE_HOST_ID=host,
        GROVE_KANBAN_DB=url,
        GROVE_HOME=str(home / "home"),
        GROVE_KANBAN_WORKSPACES=str(home / "ws"),
    )
    argv = [sys.executable, "-m", "grove", "kanban", "dispatch", "--loop", "--tick", "0.5"]
    argv += ["-j", str(args.workers), "--lease", str(args.lease), "-m", f"script:{script}"]
    argv += ["--no-decompose", "--no-review"]
    with open(log, "ab") as out:
        return subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def run(url: str, args: argparse.Namespace) -> dict[str, float | int | str]:
    from grove.kanban.open import open_board

    board = open_board(url)
    ids = [board.add(f"task {i}", max_retries=100).id for i in range(args.tasks)]
    tmp = Path(tempfile.mkdtemp(prefix="grove-two-hosts-"))
    script = tmp / "worker.yaml"
    script.write_text(SCRIPT)
    procs = {h: start_host(h, url, script, args, tmp / f"{h}.log") for h in HOSTS}
    start = time.monotonic()
    killed_at, held_at_kill, victims = None, [], []
    try:
        while time.monotonic() - start < args.timeout:
            done = len(board.tasks("done"))
            if done == len(ids):
                break
            if killed_at is None and done >= args.kill_at * len(ids):
                # host A frozen whole, so what it holds cannot change while we look (a worker finishing between
                # a look and the kill left it holding nothing)
                signal_host(procs[HOSTS[0]], signal.SIGSTOP)
                held = [t.id for t in board.running() if t.lease_host == HOSTS[0] and t.lease_pid]
                if held:  # host A has live workers on tasks: now it goes down, all of it
                    victims = kill_host(procs[HOSTS[0]])
                    killed_at = time.monotonic() - start
                    held_at_kill = held
                else:
                    signal_host(procs[HOSTS[0]], signal.SIGCONT)
            board.wait(0.2)
        elapsed = time.monotonic() - start
    finally:
        for p in procs.values():
            if p.poll() is None:
                kill_host(p)
    runs = board.runs()
    completed = Counter(e.task_id for e in board.events() if e.kind == "completed")
    by_host = Counter(r.host for r in runs if r.outcome == "done")
    expired = [r for r in runs if (r.error or "").startswith("lease expired")]
    held_taken = sum(
        1
        for t in held_at_kill
        if any(r.task_id == t and r.host == HOSTS[1] and r.outcome == "done" for r in runs)
    )
    figures: dict[str, float | int | str] = {
        "tasks": len(ids),
        "seconds": round(elapsed, 1),
        "tasks_per_min": round(completed.total() / elapsed * 60, 1),
        "done_on_a": by_host.get(HOSTS[0], 0),
        "done_on_b": by_host.get(HOSTS[1], 0),
        "killed_at_s": round(killed_at, 1) if killed_at is not None else -1,
        "processes_killed": len(victims),
        "held_by_a_at_kill": len(held_at_kill),
        "taken_back_by_b": held_taken,
        "reclaims": board.stats()["reclaims"],
        "expired_reclaims": len(expired),
        "duplicate_completions": sum(1 for n in completed.values() if n > 1),
        "lost": sum(1 for i in ids if completed[i] == 0),
    }
    for r in runs:
        if r.outcome in ("reclaimed", "failed"):
            print(f"task #{r.task_id} lease {r.fence} on {r.host}: {r.outcome}: {r.error}")
    board.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2, help="workers per host")
    parser.add_argument("--lease", type=float, default=6.0)
    parser.add_argument(
        "--kill-at", type=float, default=0.3, help="share of tasks done when host A is killed"
    )
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--db", help="a postgresql:// board (default: a throwaway cluster)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="grove-two-hosts-home-"))
    os.environ.setdefault("GROVE_HOME", str(home / "home"))
    os.environ.setdefault("GROVE_KANBAN_WORKSPACES", str(home / "ws"))
    if args.db:
        figures = run(args.db, args)
    else:
        from grove.kanban.pg_cluster import start_cluster

        try:
            cluster = start_cluster()
        except (RuntimeError, ImportError) as e:
            print(f"skipped: no PostgreSQL cluster ({e})")
            raise SystemExit(0) from e
        try:
            figures = run(cluster.create_db("two_hosts"), args)
        finally:
            cluster.stop()
    for k, v in figures.items():
        print(f"{k:24} {v}")
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
