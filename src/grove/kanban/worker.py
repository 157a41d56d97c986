"""A kanban worker: one task, one runtime session. It holds the task's lease (claimed here, or handed over by the
dispatcher with its fence), heartbeats in a thread, runs unattended (approvals deny) in the task's workspace with
the kanban tools added, and finishes the task: done, blocked, or failed (the circuit breaker counts failures)."""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grove.kanban.handle import WorkerHandle
from grove.kanban.leases import Leases
from grove.kanban.model import LeaseLost, Task
from grove.kanban.procs import process_start

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.types import Model
    from grove.runtime.profile import ReviewMode
    from grove.tools.context import ToolContext


@dataclass
class WorkerResult:
    task_id: int
    outcome: str  # done, review, blocked, failed, lost, none (nothing to claim)
    detail: str = ""


def worker_prompt(task: Task, board: Leases) -> str:
    lines = [f"You are a kanban worker. Your task is #{task.id}: {task.title}"]
    if task.body:
        lines += ["", task.body]
    for parent_id in task.parents:
        parent = board.get(parent_id)
        lines.append(f"Done before it: #{parent.id} {parent.title}: {parent.result or ''}")
    lines += [
        "",
        "Work in your workspace. When the task is finished call kanban_complete(summary, artifacts); "
        "if it cannot be done, call kanban_block(reason). Follow-up work goes on the board with kanban_create.",
    ]
    return "\n".join(lines)


WORKSPACES_ENV = "GROVE_KANBAN_WORKSPACES"


def preload_skills(ctx: ToolContext, names: list[str]) -> str:
    """The task's skills, loaded as skill_view loads them (scanned, flagged text quoted), for the first prompt."""
    from grove.tools.registry import ToolError
    from grove.tools.skills import skill_view

    parts = []
    for name in names:
        try:
            parts.append(f"Skill {name}, loaded for this task:\n{skill_view(ctx, name)}")
        except ToolError as e:
            parts.append(f"Skill {name} could not be loaded: {e}")
    return "\n\n".join(parts)


def _own_workspace(home: Path, task_id: int) -> Path:
    """The task's own folder under $GROVE_KANBAN_WORKSPACES (default $GROVE_HOME/workspaces/kanban). As root it is
    group-writable by the sandbox group, whose rights file tools act with."""
    from grove.config.workspaces import entrance_root
    from grove.sandbox.users import sandbox_folder

    return sandbox_folder(entrance_root(home, "kanban", os.environ.get(WORKSPACES_ENV)) / f"task-{task_id}")


def _heartbeat(handle: WorkerHandle, stop: threading.Event) -> None:
    while not stop.wait(handle.lease_s / 3):
        if handle.outcome is not None:
            return
        try:
            handle.board.heartbeat(handle.task_id, handle.fence, handle.lease_s)
        except LeaseLost:
            handle.lost = True  # its next kanban call is refused; the result is dropped
            if handle.on_lost is not None:
                handle.on_lost()
            return


def run_worker(
    settings: Settings,
    board: Leases,
    task_id: int,
    *,
    fence: int | None = None,
    model: str | None = None,
    model_override: Model | None = None,
    host: str | None = None,
    lease_s: float = 300.0,
    toolsets: list[str] | None = None,
    review: ReviewMode = "thread",
    interrupt_on_loss: bool = False,
) -> WorkerResult:
    """Work one task. `interrupt_on_loss` (the worker process, where the turn runs on the main thread): a lease
    found reclaimed by the heartbeat interrupts the turn at once, as Ctrl-C would, instead of letting it finish."""
    from grove.backends.base import BackendError
    from grove.runtime import Profile, Session
    from grove.tools import kanban as kanban_tools
    from grove.tools.kanban import STATE_KEY, bounds_state
    from grove.tools.registry import ToolRegistry

    host = host or socket.gethostname()
    worker = f"{host}:{os.getpid()}"
    if fence is None:
        claim = board.claim(worker, host, lease_s=lease_s, task_id=task_id, pid=os.getpid())
        if claim is None:
            return WorkerResult(task_id, "none", f"task #{task_id} is not ready to claim")
        fence = claim.fence
    try:
        board.attach(task_id, fence, os.getpid(), process_start(os.getpid()), worker)
    except LeaseLost as e:
        return WorkerResult(task_id, "lost", str(e))
    task = board.get(task_id)
    handle = WorkerHandle(board, task_id, fence, worker, lease_s)
    if interrupt_on_loss:
        import signal

        # a real SIGINT (not _thread.interrupt_main) so a blocking model call is cut short too; a worker started in
        # the background by a script (`grove worker ... &`) inherits SIGINT ignored, which would make that a no-op
        if (
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            and threading.current_thread() is threading.main_thread()
        ):
            signal.signal(signal.SIGINT, signal.default_int_handler)
        handle.on_lost = lambda: os.kill(os.getpid(), signal.SIGINT)
    workspace = Path(task.workspace) if task.workspace else _own_workspace(settings.home, task_id)
    profile = Profile(
        source="worker",
        model=model_override or model,
        toolsets=toolsets,  # None = settings.toolsets, with MCP and learned tools as in any session
        tools=ToolRegistry(kanban_tools.tools()),  # the board's tools, added to them
        workspace=workspace,
        backend=board.setting("backend"),  # the board's (`grove kanban backend`), else backends.use
        approver=None,  # unattended: whatever needs approval is denied
        title=f"kanban #{task_id}: {task.title}"[:120],
        review=review,  # "thread": its experience feeds the shared skill library
    )
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(handle, stop), name="kanban-heartbeat", daemon=True)
    try:
        session = Session.open(settings, profile)
    except BackendError as e:  # the board names a backend this host cannot use: the task says why
        board.fail(task_id, fence, str(e))
        return WorkerResult(task_id, "failed", str(e))
    try:  # where this attempt's trajectory is stored (grove batch export reads it)
        board.worker_event(task_id, fence, "session", session_id=session.id, db=str(settings.db_path))
    except LeaseLost as e:
        session.close()
        return WorkerResult(task_id, "lost", str(e))
    session.failures.task_text = f"{task.title}\n{task.body}"  # failure notes match the task, not the wrapper
    session.agent.ctx.state[STATE_KEY] = handle
    session.agent.ctx.state.update(bounds_state(task_id, {t.id: t.created_by for t in board.tasks()}))
    beat.start()
    try:
        prompt = worker_prompt(task, board)
        if task.skills:
            prompt += "\n\n" + preload_skills(session.agent.ctx, task.skills)
        result = session.run_turn(prompt)
        if handle.lost:
            return WorkerResult(task_id, "lost", "the lease was reclaimed while working")
        if handle.outcome is not None:
            return WorkerResult(task_id, handle.outcome)
        if result.answer.strip() and not (result.interrupted or result.budget_exhausted):
            handle.complete(result.answer.strip(), [])  # answered without the tool: the answer is the summary
            return WorkerResult(task_id, handle.outcome or "done")
        why = "interrupted" if result.interrupted else "the turn ended without an answer (iteration budget)"
        board.fail(task_id, fence, why)
        return WorkerResult(task_id, "failed", why)
    except LeaseLost as e:
        return WorkerResult(task_id, "lost", str(e))
    except KeyboardInterrupt:
        if handle.lost:  # the interrupt came from the heartbeat, between model calls
            return WorkerResult(task_id, "lost", "the lease was reclaimed while working")
        raise
    except Exception as e:  # any failure of the attempt is recorded on the task, then counted by the breaker
        try:
            board.fail(task_id, fence, f"{type(e).__name__}: {e}")
        except LeaseLost:
            return WorkerResult(task_id, "lost", str(e))
        return WorkerResult(task_id, "failed", f"{type(e).__name__}: {e}")
    finally:
        stop.set()
        session.close(wait_review=True)
