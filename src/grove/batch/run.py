"""Running a batch: add the dataset's missing cards, then tick the board's own dispatcher (claims only this
batch's cards, starts `grove worker` processes) and label each card as it finishes, until every card is labelled.
Killed and started again, it adds nothing twice and leaves finished and still-running cards alone."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grove.atomic_files import atomic_write_text
from grove.batch import cards
from grove.batch.dataset import Item
from grove.batch.verify import Label, verify
from grove.kanban.dispatcher import DispatchConfig, Dispatcher, TickReport
from grove.kanban.leases import Leases
from grove.kanban.model import Claim, Task

FINISHED = ("done", "review", "blocked", "archived")


@dataclass
class BatchConfig:
    name: str
    location: str  # the board, as workers open it
    workspaces: Path  # each card works in workspaces/<id>
    model: str | None = None
    jobs: int = 4
    lease_s: float = 300.0
    max_retries: int = 1  # failed attempts retried before the card is blocked (and labelled failed)
    review: bool = False  # workers' self-review (off by default: a batch measures, it does not learn)
    host: str = field(default_factory=socket.gethostname)
    tick_s: float = 2.0
    toolsets: str | None = None  # comma-separated, as `grove worker --toolsets` takes them
    log_dir: Path | None = None
    failure_home: Path | None = (
        None  # with learning on (--review): a failed verifier becomes a failure note here
    )


@dataclass
class Progress:
    total: int
    labelled: int = 0
    passed: int = 0
    running: int = 0
    added: int = 0  # cards this run put on the board (0 on a resume that found them all)
    newly: list[tuple[str, Label]] = field(default_factory=list)  # labelled in the last tick
    labels: dict[str, Label] = field(default_factory=dict)  # a label never changes: read once, not every tick

    def line(self) -> str:
        return (
            f"{self.labelled}/{self.total} labelled, {self.passed} passed, "
            f"{self.labelled - self.passed} failed, {self.running} running"
        )


def workspace_of(config: BatchConfig, item_id: str) -> Path:
    return config.workspaces / item_id


def _prepare(config: BatchConfig, item: Item) -> Path:
    from grove.sandbox.users import sandbox_folder

    ws = sandbox_folder(workspace_of(config, item.id))
    for rel, text in item.files.items():
        path = ws / rel
        for parent in reversed(path.relative_to(ws).parents[:-1]):
            sandbox_folder(ws / parent)
        atomic_write_text(path, text, mode=0o664)
    return ws


def enqueue(
    board: Leases, items: list[Item], config: BatchConfig, warn: Callable[[str], None] = lambda _: None
) -> int:
    """Put every dataset line without a card on the board; the number added."""
    have = cards.find(board, config.name, items)
    added = 0
    for item in items:
        if item.id in have:
            if have[item.id].body != item.prompt:  # the dataset changed under a card: the card stands
                warn(f"{item.id}: its prompt changed since the card was made; the card keeps the old one "
                     f"(a new id, or another --name, runs the new prompt)")  # fmt: skip
            continue  # a resumed batch: the card and its workspace are as the first run left them
        ws = _prepare(config, item)
        board.add(
            cards.title(item),
            item.prompt,
            assignee=cards.assignee(config.name),
            workspace=str(ws),
            idempotency_key=cards.key(config.name, item.id),
            max_retries=config.max_retries,
        )
        added += 1
    return added


def label_finished(board: Leases, items: list[Item], config: BatchConfig, progress: Progress) -> None:
    have = cards.find(board, config.name, items)
    progress.labelled = progress.passed = progress.running = 0
    progress.newly = []
    for item in items:
        task = have.get(item.id)
        if task is None:
            continue
        if task.status == "running":
            progress.running += 1
        label = progress.labels.get(item.id)
        if label is None and task.status in FINISHED:  # only a finished card can have a label
            label = cards.label_of(board, task.id)
        if label is None and task.status in FINISHED:
            label = verify(
                item,
                task.status,
                Path(task.workspace or workspace_of(config, item.id)),
                task.result or "",
                task.error or "",
            )
            if cards.write_label(board, task.id, label):
                progress.newly.append((item.id, label))
                if config.failure_home is not None and not label.passed and task.status in ("done", "review"):
                    note_failure(board, task, label, config.failure_home)
            else:  # another batch process (another host) labelled it first: its label stands
                label = cards.label_of(board, task.id)
        if label is not None:
            progress.labels[item.id] = label
            progress.labelled += 1
            progress.passed += label.passed


def note_failure(board: Leases, task: Task, label: Label, home: Path) -> None:
    """The card's approach (its last changes, else its answer) and the verifier's verdict, for the next similar
    task to see."""
    from grove.batch.trajectory import load
    from grove.learning.failure_capture import call_text
    from grove.learning.failure_notes import record

    found = load(board, task)
    calls = [
        call_text(c["function"]["name"], c["function"].get("arguments") or "{}")
        for m in (found.messages if found else [])
        for c in m.get("tool_calls") or []
        if not c["function"]["name"].startswith("kanban_")
    ]
    tried = "; ".join(calls[-3:]) or f"answered: {task.result or ''}"
    record(home, "verifier", f"{task.title}\n{task.body}", tried, f"the check failed: {label.detail}")


def dispatcher_for(
    board: Leases, config: BatchConfig, spawn: Callable[[Claim], int] | None = None
) -> Dispatcher:
    args = [] if config.review else ["--no-review"]
    if config.toolsets:
        args += ["--toolsets", config.toolsets]
    dispatch = DispatchConfig(
        location=config.location,
        host=config.host,
        max_in_progress=config.jobs,
        only_assignees=[cards.assignee(config.name)],
        lease_s=config.lease_s,
        model=config.model,
        worker_args=args,
        log_dir=config.log_dir,
        home=Path(os.environ["GROVE_HOME"]) if os.environ.get("GROVE_HOME") else None,
    )
    return Dispatcher(board, dispatch, spawn=spawn)


def run_batch(
    board: Leases,
    items: list[Item],
    config: BatchConfig,
    *,
    on_tick: Callable[[TickReport, Progress], None] | None = None,
    spawn: Callable[[Claim], int] | None = None,
    warn: Callable[[str], None] = lambda _: None,
) -> Progress:
    progress = Progress(total=len(items), added=enqueue(board, items, config, warn))
    dispatcher = dispatcher_for(board, config, spawn)
    while True:
        report = dispatcher.tick()
        label_finished(board, items, config, progress)
        if on_tick is not None:
            on_tick(report, progress)
        if progress.labelled >= progress.total:
            return progress
        board.wait(config.tick_s)
