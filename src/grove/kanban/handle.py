"""A worker's hold on its one task, as the kanban tools see it: every call names the lease's fencing token, so a
worker whose lease was reclaimed gets an error instead of changing the task."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from grove.kanban.leases import Leases
from grove.kanban.model import LeaseLost
from grove.tools.registry import ToolError


@dataclass
class WorkerHandle:
    board: Leases
    task_id: int
    fence: int
    worker: str
    lease_s: float = 300.0
    outcome: str | None = None  # done, review, blocked: the worker called a finishing tool
    lost: bool = False
    on_lost: Callable[[], None] | None = (
        None  # the heartbeat found the lease gone (the CLI interrupts the turn)
    )

    def _guard(self, what: str) -> None:
        if self.lost:
            raise ToolError(
                f"your lease on task #{self.task_id} was reclaimed; stop working on it ({what} refused)"
            )
        if self.outcome is not None:
            raise ToolError(f"task #{self.task_id} is already {self.outcome}; nothing more to do")

    def _lost(self, e: LeaseLost) -> ToolError:
        self.lost = True
        return ToolError(f"{e}; another worker owns the task now: stop")

    def show(self) -> str:
        task = self.board.get(self.task_id)
        lines = [f"task #{task.id} [{task.status}] {task.title}", task.body or "(no body)"]
        for parent_id in task.parents:
            parent = self.board.get(parent_id)
            lines.append(f"parent #{parent.id} [{parent.status}] {parent.title}: {parent.result or ''}")
        lines += [f"comment by {c.author}: {c.body}" for c in self.board.comments(task.id)]
        lines += [
            f"attempt (lease {r.fence}) {r.outcome}: {r.error or r.summary or ''}"
            for r in self.board.runs(task.id)
            if r.fence != self.fence
        ]
        return "\n".join(lines)

    def heartbeat(self) -> str:
        self._guard("heartbeat")
        try:
            expires = self.board.heartbeat(self.task_id, self.fence, self.lease_s)
        except LeaseLost as e:
            raise self._lost(e) from e
        return f"lease extended by {self.lease_s:.0f}s (until {expires:.0f})"

    def complete(self, summary: str, artifacts: list[str]) -> str:
        self._guard("complete")
        try:
            task = self.board.complete(self.task_id, self.fence, summary, artifacts)
        except LeaseLost as e:
            raise self._lost(e) from e
        self.outcome = task.status
        return f"task #{self.task_id} is {task.status}"

    def block(self, reason: str) -> str:
        self._guard("block")
        try:
            self.board.block(self.task_id, self.fence, reason)
        except LeaseLost as e:
            raise self._lost(e) from e
        self.outcome = "blocked"
        return f"task #{self.task_id} is blocked: {reason}"

    def comment(self, text: str) -> str:
        self._guard("comment")
        try:
            self.board.worker_comment(self.task_id, self.fence, self.worker, text)
        except LeaseLost as e:
            raise self._lost(e) from e
        return "comment added"

    def create(self, title: str, body: str, parents: list[int]) -> str:
        self._guard("create")
        try:
            task = self.board.worker_create(self.task_id, self.fence, title, body, parents)
        except LeaseLost as e:
            raise self._lost(e) from e
        return f"created task #{task.id} [{task.status}] {task.title}"
