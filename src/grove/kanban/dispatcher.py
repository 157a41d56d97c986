"""The dispatcher (one per host): each tick reclaims expired leases, reclaims the leases of this host's workers
that died (pid + start time), decomposes a few triage tasks with the model, promotes todo tasks whose parents are
done, and claims ready tasks for new workers (`grove worker --task ID --fence N`) up to its limits."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grove.config import grove_home
from grove.kanban.leases import Leases
from grove.kanban.model import Claim, LeaseLost, Task
from grove.kanban.procs import alive, process_start
from grove.own_process import spawn_python

Decomposer = Callable[[Task], list[tuple[str, str]]]


@dataclass
class DispatchConfig:
    location: str  # the board, as workers open it
    host: str = field(default_factory=socket.gethostname)
    max_in_progress: int = 4  # workers running on this host at once
    per_profile: dict[str, int] = field(default_factory=dict)  # assignee -> at most this many at once
    only_assignees: list[str] | None = None  # claim only these assignees' cards (None: every card)
    board_max_in_progress: int | None = (
        None  # running tasks on the whole board (every host), counted in the DB
    )
    board_per_profile: dict[str, int] = field(
        default_factory=dict
    )  # assignee -> at most this many board-wide
    lease_s: float = 300.0
    decompose_per_tick: int = 3
    model: str | None = None  # the workers' model spec (None: their settings)
    worker_args: list[str] = field(default_factory=list)  # extra `grove worker` options
    log_dir: Path | None = None
    home: Path | None = None  # where workers start (their cwd); None: $GROVE_HOME


@dataclass
class TickReport:
    reclaimed: list[int] = field(default_factory=list)  # leases that ran out
    crashed: list[int] = field(default_factory=list)  # workers of this host found dead
    decomposed: list[int] = field(default_factory=list)
    promoted: list[int] = field(default_factory=list)
    spawned: list[int] = field(default_factory=list)

    def line(self) -> str:
        parts = [f"{k} {v}" for k, v in vars(self).items() if v]
        return "; ".join(parts) if parts else "nothing to do"


class Dispatcher:
    def __init__(
        self,
        board: Leases,
        config: DispatchConfig,
        *,
        spawn: Callable[[Claim], int] | None = None,
        decomposer: Decomposer | None = None,
    ) -> None:
        self.board = board
        self.config = config
        self.spawn = spawn or self._spawn_process
        self.decomposer = decomposer
        self.children: list[subprocess.Popen[bytes]] = []

    def tick(self) -> TickReport:
        report = TickReport(reclaimed=self.board.reclaim_expired())
        self.children = [p for p in self.children if p.poll() is None]  # reap: a zombie is not a live worker
        for task in self.board.running():
            if (
                task.lease_host == self.config.host
                and task.lease_pid
                and not alive(task.lease_pid, task.lease_start)
            ):
                why = f"worker pid {task.lease_pid} on {task.lease_host} is gone"
                if self.board.reclaim(task.id, task.fence, why):
                    report.crashed.append(task.id)
        if self.decomposer is not None:
            for task in self.board.tasks("triage")[: self.config.decompose_per_tick]:
                try:
                    children = self.decomposer(task)
                except Exception as e:  # a model failure must not stop the dispatcher: work it as one task
                    self.board.comment(
                        task.id, "dispatcher", f"decomposition failed ({e}); worked as one task"
                    )
                    children = []
                self.board.decompose(task.id, children)
                report.decomposed.append(task.id)
        report.promoted = self.board.promote()
        report.spawned = self._fill()
        return report

    def _fill(self) -> list[int]:
        mine = [t for t in self.board.running() if t.lease_host == self.config.host]
        per = Counter(t.assignee or "default" for t in mine)
        spawned: list[int] = []
        while len(mine) + len(spawned) < self.config.max_in_progress:
            full = [p for p, limit in self.config.per_profile.items() if per[p] >= limit]
            claim = self.board.claim(
                f"{self.config.host}:dispatcher",
                self.config.host,
                lease_s=self.config.lease_s,
                skip_assignees=full,
                only_assignees=self.config.only_assignees,
                board_max=self.config.board_max_in_progress,
                board_per_profile=self.config.board_per_profile or None,
            )
            if claim is None:
                break
            try:
                self.spawn(claim)
            except OSError as e:
                self.board.fail(claim.task.id, claim.fence, f"could not start a worker: {e}")
                break
            per[claim.task.assignee or "default"] += 1
            spawned.append(claim.task.id)
        return spawned

    def _spawn_process(self, claim: Claim) -> int:
        c = self.config
        argv = [
            "-m",
            "grove",
            "worker",
            "--task",
            str(claim.task.id),
            "--fence",
            str(claim.fence),
        ]
        # a board path is made absolute: the worker starts in grove's home, not here
        location = c.location if "://" in c.location else str(Path(c.location).absolute())
        argv += ["--db", location, "--host", c.host, "--lease", str(c.lease_s), *c.worker_args]
        if c.model:
            argv += ["--model", c.model]
        log = subprocess.DEVNULL
        if c.log_dir is not None:
            c.log_dir.mkdir(parents=True, exist_ok=True)
            log = open(c.log_dir / f"task-{claim.task.id}-lease-{claim.fence}.log", "ab")  # noqa: SIM115
        # isolated Python in grove's home, not the dispatcher's folder: a module planted there is never imported
        proc = spawn_python(
            argv,
            cwd=c.home or grove_home(),
            keep=_key_envs(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if not isinstance(log, int):  # a log file, not DEVNULL
            log.close()
        self.children.append(proc)
        with contextlib.suppress(LeaseLost):  # it finished (or failed) before we recorded it
            self.board.attach(
                claim.task.id, claim.fence, proc.pid, process_start(proc.pid), f"{c.host}:{proc.pid}"
            )
        return proc.pid

    def loop(
        self,
        tick_s: float = 60.0,
        stop: threading.Event | None = None,
        on_tick: Callable[[TickReport], None] | None = None,
    ) -> None:
        """Tick until `stop` is set; between ticks sleep up to `tick_s`, woken early by a board change."""
        stop = stop or threading.Event()
        while not stop.is_set():
            report = self.tick()
            if on_tick is not None:
                on_tick(report)
            if not stop.is_set():
                self.board.wait(tick_s)


def _key_envs() -> set[str]:
    """The providers' key variables workers need (a broken config.yaml is the worker's to report)."""
    from grove.config import load_settings
    from grove.errors import GroveError
    from grove.runtime.background import key_envs

    try:
        return key_envs(load_settings())
    except GroveError:
        return set()
