"""Kanban under chaos: 200 tasks with dependencies worked by 4 workers at once (real `grove worker` processes on
the script model, started by the dispatcher), while a chaos thread SIGKILLs running workers at random. Counts what
must never happen: a task completed twice (duplicates) or never (lost). Runs on SQLite, and on PostgreSQL when
initdb and psycopg are available (a throwaway cluster in a temp dir).

`--hosts 2` (PostgreSQL) runs two dispatchers with different host ids on one board, each with its own workers;
half-way one whole host (dispatcher and workers) is killed and the other must finish its tasks (lease expiry).
Run: python benchmarks/kanban_chaos.py [--tasks 200] [--workers 4] [--kill-every 1.5] [--backends sqlite,postgres]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from grove.kanban.dispatcher import DispatchConfig, Dispatcher
from grove.kanban.leases import Leases
from grove.kanban.open import open_board

SCRIPT = """- tool_calls: [{name: kanban_complete, arguments: {summary: done by the script}}]
- text: ok
"""


def seed(board: Leases, n: int, rng: random.Random) -> list[int]:
    ids: list[int] = []
    for i in range(n):
        window = ids[max(0, i - 20) :]
        parents = rng.sample(window, k=min(len(window), rng.choice([0, 0, 1, 2])))
        ids.append(board.add(f"task {i}", parents=parents, max_retries=100).id)
    return ids


def chaos(
    dispatchers: list[Dispatcher], stop: threading.Event, every: float, rng: random.Random, kills: list[int]
) -> None:
    while not stop.wait(rng.uniform(0.3, 1.7) * every):
        live = [p for d in dispatchers for p in d.children if p.poll() is None]
        if live:
            victim = rng.choice(live)
            try:
                os.killpg(victim.pid, signal.SIGKILL)  # the worker and anything it started
                kills.append(victim.pid)
            except ProcessLookupError:
                pass


def run(location: str, args: argparse.Namespace, label: str) -> dict[str, float]:
    rng = random.Random(args.seed)
    board = open_board(location)
    board.breaker = 1000  # kills are the infrastructure failing, not the task: never block for them here
    ids = seed(board, args.tasks, rng)
    script = Path(tempfile.mkdtemp()) / "worker.yaml"
    script.write_text(SCRIPT)
    hosts = [f"{label}-host-{h}" for h in range(args.hosts)]
    dispatchers = []
    for host in hosts:
        own = open_board(location)
        own.breaker = 1000
        config = DispatchConfig(
            location=location,
            host=host,
            max_in_progress=max(1, args.workers // len(hosts)),
            lease_s=args.lease,
            model=f"script:{script}",
            worker_args=["--no-review", "--toolsets", ""],
        )
        dispatchers.append(Dispatcher(own, config))
    stop, dead_host = threading.Event(), threading.Event()
    kills: list[int] = []
    monkey = threading.Thread(
        target=chaos, args=(dispatchers, stop, args.kill_every, rng, kills), daemon=True
    )
    start = time.monotonic()
    monkey.start()
    deadline = start + args.timeout
    while time.monotonic() < deadline:
        done = len(board.tasks("done"))
        if done == len(ids):
            break
        for i, d in enumerate(dispatchers):
            if i == 0 and dead_host.is_set():
                continue
            d.tick()
        if args.hosts > 1 and not dead_host.is_set() and done >= len(ids) // 2:
            for p in dispatchers[0].children:  # the whole first host goes down, workers and all
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
            dead_host.set()
        board.wait(0.2)
    elapsed = time.monotonic() - start
    stop.set()
    for d in dispatchers:
        for p in d.children:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    completed = Counter(e.task_id for e in board.events() if e.kind == "completed")
    by_host = Counter(r.host for r in board.runs() if r.outcome == "done")
    stats = board.stats(window=elapsed + 1)
    figures = {
        "tasks": len(ids),
        "tasks_per_min": round(completed.total() / elapsed * 60, 1),
        "seconds": round(elapsed, 1),
        "kills": len(kills),
        "reclaims": stats["reclaims"],
        "duplicate_completions": sum(1 for n in completed.values() if n > 1),
        "lost": sum(1 for i in ids if completed[i] == 0),
        "blocked": stats["counts"]["blocked"],
        # leases nobody could check by pid (another host's, or a host that died): taken back on expiry
        "expired_reclaims": sum(1 for r in board.runs() if (r.error or "").startswith("lease expired")),
    }
    for host in hosts:
        figures[f"done_on_{host.split('-')[-1]}"] = by_host.get(host, 0)
    for b in [board, *(d.board for d in dispatchers)]:
        b.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--kill-every", type=float, default=1.5, help="mean seconds between SIGKILLs")
    parser.add_argument("--lease", type=float, default=20.0)
    parser.add_argument("--hosts", type=int, default=1)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="grove-chaos-"))
    os.environ["GROVE_HOME"] = str(home / "home")
    os.environ["GROVE_KANBAN_WORKSPACES"] = str(home / "ws")
    results: dict[str, dict[str, float]] = {}
    for backend in args.backends.split(","):
        if backend == "sqlite":
            results["sqlite"] = run(str(home / "board.db"), args, "sqlite")
        elif backend == "postgres":
            from grove.kanban.pg_cluster import start_cluster

            try:
                cluster = start_cluster()
            except (RuntimeError, ImportError) as e:
                print(f"postgres: skipped ({e})")
                continue
            try:
                results["postgres"] = run(cluster.create_db("chaos"), args, "pg")
            finally:
                cluster.stop()
    print(f"{'backend':10} " + " ".join(f"{k:>22}" for k in next(iter(results.values()), {})))
    for name, figures in results.items():
        print(f"{name:10} " + " ".join(f"{v:>22}" for v in figures.values()))
    print(" ".join(f"{name}_{k}={v}" for name, figures in results.items() for k, v in figures.items()))


if __name__ == "__main__":
    main()
