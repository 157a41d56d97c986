"""What the board holds: tasks, runs (one per attempt), comments and events, and the claim a worker works under."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from grove.errors import GroveError

Status = Literal["triage", "todo", "ready", "running", "blocked", "review", "done", "archived"]
STATUSES: tuple[str, ...] = ("triage", "todo", "ready", "running", "blocked", "review", "done", "archived")
# a parent counts as finished once it completed, even if it was archived afterwards
FINISHED = ("done",)


class LeaseLost(GroveError):
    """The worker's lease was reclaimed (its fencing token is stale): it may no longer change the task."""


class UnknownTask(GroveError):
    """No task has this id."""


@dataclass
class Task:
    id: int
    title: str
    body: str = ""
    status: str = "todo"
    assignee: str | None = None  # the profile that should work it
    priority: int = 0
    skills: list[str] = field(default_factory=list)
    workspace: str | None = None
    idempotency_key: str | None = None
    max_retries: int = 3
    failures: int = 0  # consecutive failed attempts (the circuit breaker counts these)
    fence: int = 0  # bumped by every claim and reclaim: the token a worker's writes must carry
    lease_owner: str | None = None
    lease_host: str | None = None
    lease_pid: int | None = None
    lease_start: str | None = None  # the worker process's start time (pid reuse check on its host)
    lease_expires: float | None = None
    result: str | None = None
    artifacts: list[str] = field(default_factory=list)
    error: str | None = None
    created_by: int | None = None  # the task whose worker created this one
    created_at: float = 0.0
    updated_at: float = 0.0
    completed_at: float | None = None
    parents: list[int] = field(default_factory=list)


@dataclass
class Run:
    id: int
    task_id: int
    fence: int
    worker: str
    host: str
    pid: int | None
    started_at: float
    ended_at: float | None
    outcome: str  # running, done, blocked, failed, reclaimed
    summary: str | None
    error: str | None


@dataclass
class Comment:
    id: int
    task_id: int
    author: str
    body: str
    created_at: float


@dataclass
class Event:
    id: int
    task_id: int | None
    kind: str
    data: dict[str, Any]
    created_at: float


@dataclass
class Claim:
    """A lease on one task: every write of its worker names the fence; a reclaim makes it stale."""

    task: Task
    fence: int
    run_id: int
    expires: float
