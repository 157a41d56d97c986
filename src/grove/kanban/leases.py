"""Claims as leases with an expiry and a fencing token. Every claim and reclaim bumps the task's fence; every write
a worker makes names the fence it was given and is refused (LeaseLost) once the fence moved on or the lease ran
out, so a worker whose lease was reclaimed can neither complete nor change the task."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from grove.kanban.board import TASK_COLUMNS, BoardCore, Tx, task_from_row
from grove.kanban.model import Claim, LeaseLost, Task


class Leases(BoardCore):
    def claim(
        self,
        worker: str,
        host: str,
        *,
        lease_s: float = 300.0,
        task_id: int | None = None,
        pid: int | None = None,
        skip_assignees: Iterable[str] = (),
        only_assignees: Iterable[str] | None = None,
        board_max: int | None = None,
        board_per_profile: dict[str, int] | None = None,
    ) -> Claim | None:
        """Compare-and-set one ready task (the best by priority, or `task_id`) to running under a new fence.

        `board_max` / `board_per_profile` cap the tasks running on the whole board (every dispatcher, every
        host): the running tasks are counted inside the claim's transaction, which such claims take one at a
        time (SQLite: BEGIN IMMEDIATE; PostgreSQL: a transaction advisory lock), so racing claims cannot both
        see room for one more."""
        skip = list(skip_assignees)
        sql = "SELECT id FROM kanban_tasks WHERE status = 'ready'"
        params: list[Any] = []
        if task_id is not None:
            sql += " AND id = ?"
            params.append(task_id)
        if skip:
            sql += f" AND COALESCE(assignee, 'default') NOT IN ({', '.join('?' for _ in skip)})"
            params += skip
        if only_assignees is not None:  # a dispatcher for one kind of card (a batch's) leaves the rest alone
            only = list(only_assignees) or [""]
            sql += f" AND COALESCE(assignee, 'default') IN ({', '.join('?' for _ in only)})"
            params += only
        with self.transaction() as tx:
            if board_max is not None or board_per_profile:
                self.claim_lock(tx)
                running = {
                    str(r["who"]): int(r["n"])
                    for r in tx.q(
                        "SELECT COALESCE(assignee, 'default') AS who, count(*) AS n FROM kanban_tasks "
                        "WHERE status = 'running' GROUP BY COALESCE(assignee, 'default')"
                    )
                }
                if board_max is not None and sum(running.values()) >= board_max:
                    return None
                full = [p for p, limit in (board_per_profile or {}).items() if running.get(p, 0) >= limit]
                if full:
                    sql += f" AND COALESCE(assignee, 'default') NOT IN ({', '.join('?' for _ in full)})"
                    params += full
            sql += " ORDER BY priority DESC, id LIMIT 1" + self.skip_locked
            rows = tx.q(sql, params)
            if not rows:
                return None
            chosen = int(rows[0]["id"])
            now = self.clock()
            changed = tx.q(
                "UPDATE kanban_tasks SET status = 'running', fence = fence + 1, lease_owner = ?, lease_host = ?, "
                "lease_pid = ?, lease_start = NULL, lease_expires = ?, updated_at = ? "
                "WHERE id = ? AND status = 'ready' RETURNING fence",
                (worker, host, pid, now + lease_s, now, chosen),
            )
            if not changed:  # someone else's compare-and-set won
                return None
            fence = int(changed[0]["fence"])
            run = tx.q(
                "INSERT INTO kanban_runs (task_id, fence, worker, host, pid, started_at, outcome) "
                "VALUES (?, ?, ?, ?, ?, ?, 'running') RETURNING id",
                (chosen, fence, worker, host, pid, now),
            )
            self.event(tx, chosen, "claimed", worker=worker, host=host, fence=fence)
            return Claim(self._task(tx, chosen), fence, int(run[0]["id"]), now + lease_s)

    def _held(self, tx: Tx, task_id: int, fence: int) -> Task:
        task = self._task(tx, task_id, lock=True)
        if task.status != "running" or task.fence != fence:
            raise LeaseLost(
                f"task #{task_id}: lease {fence} was reclaimed (now {task.status}, fence {task.fence})"
            )
        if task.lease_expires is not None and task.lease_expires < self.clock():
            raise LeaseLost(f"task #{task_id}: lease {fence} expired")
        return task

    def heartbeat(self, task_id: int, fence: int, lease_s: float = 300.0) -> float:
        with self.transaction() as tx:
            self._held(tx, task_id, fence)
            expires = self.clock() + lease_s
            tx.x(
                "UPDATE kanban_tasks SET lease_expires = ? WHERE id = ? AND fence = ?",
                (expires, task_id, fence),
            )
            return expires

    def attach(self, task_id: int, fence: int, pid: int, start: str | None, owner: str | None = None) -> None:
        """Record the worker process of a lease (pid + its start time: crash detection on the same host)."""
        with self.transaction() as tx:
            task = self._held(tx, task_id, fence)
            tx.x(
                "UPDATE kanban_tasks SET lease_pid = ?, lease_start = ?, lease_owner = ? WHERE id = ? AND fence = ?",
                (pid, start, owner or task.lease_owner, task_id, fence),
            )
            tx.x("UPDATE kanban_runs SET pid = ? WHERE task_id = ? AND fence = ?", (pid, task_id, fence))

    def complete(
        self, task_id: int, fence: int, summary: str, artifacts: Iterable[str] = (), *, review: bool = False
    ) -> Task:
        with self.transaction() as tx:
            self._held(tx, task_id, fence)
            now = self.clock()
            status = "review" if review else "done"
            tx.x(
                "UPDATE kanban_tasks SET status = ?, result = ?, artifacts = ?, failures = 0, error = NULL, "
                "completed_at = ?, updated_at = ?, lease_expires = NULL WHERE id = ? AND fence = ?",
                (
                    status,
                    summary,
                    json.dumps(list(artifacts)),
                    now if status == "done" else None,
                    now,
                    task_id,
                    fence,
                ),
            )
            self._end_run(tx, task_id, fence, "done", summary=summary)
            self.event(tx, task_id, "completed", fence=fence, status=status)
            children = [
                int(r["task_id"])
                for r in tx.q("SELECT task_id FROM kanban_deps WHERE parent_id = ?", (task_id,))
            ]
            if children:
                self._promote(tx, children)
            self.notify(tx)
            return self._task(tx, task_id)

    def block(self, task_id: int, fence: int, reason: str) -> Task:
        with self.transaction() as tx:
            self._held(tx, task_id, fence)
            tx.x(
                "UPDATE kanban_tasks SET status = 'blocked', error = ?, updated_at = ?, lease_expires = NULL "
                "WHERE id = ? AND fence = ?",
                (reason, self.clock(), task_id, fence),
            )
            self._end_run(tx, task_id, fence, "blocked", error=reason)
            self.event(tx, task_id, "blocked", fence=fence, reason=reason)
            self.notify(tx)
            return self._task(tx, task_id)

    def fail(self, task_id: int, fence: int, error: str) -> Task:
        """The attempt failed: back to ready, or blocked by the circuit breaker."""
        with self.transaction() as tx:
            task = self._held(tx, task_id, fence)
            return self._failed(tx, task, error, "failed")

    def reclaim(self, task_id: int, fence: int, reason: str) -> bool:
        """Take back a lease whose worker is known dead (its pid is gone on this host); False if it moved on."""
        with self.transaction() as tx:
            task = self._task(tx, task_id, lock=True)
            if task.status != "running" or task.fence != fence:
                return False
            self._failed(tx, task, reason, "reclaimed")
            return True

    def reclaim_expired(self) -> list[int]:
        """Every running task whose lease ran out goes back to ready (or blocked) under a new fence."""
        with self.transaction() as tx:
            rows = tx.q(
                f"SELECT {TASK_COLUMNS} FROM kanban_tasks WHERE status = 'running' AND lease_expires < ? ORDER BY id"
                + self.skip_locked,
                (self.clock(),),
            )
            for row in rows:
                task = task_from_row(row)
                self._failed(
                    tx,
                    task,
                    f"lease expired (worker {task.lease_owner} on {task.lease_host}, pid {task.lease_pid})",
                    "reclaimed",
                )
            return [int(r["id"]) for r in rows]

    def worker_event(self, task_id: int, fence: int, kind: str, **data: object) -> None:
        """A fact about the lease's attempt for the log (e.g. its session id), refused once the lease is lost."""
        with self.transaction() as tx:
            self._held(tx, task_id, fence)
            self.event(tx, task_id, kind, fence=fence, **data)

    def running(self) -> list[Task]:
        return self.tasks("running")

    def worker_comment(self, task_id: int, fence: int, author: str, body: str) -> None:
        with self.transaction() as tx:
            self._held(tx, task_id, fence)
            self._comment(tx, task_id, author, body)

    def worker_create(self, task_id: int, fence: int, title: str, body: str, parents: Iterable[int]) -> Task:
        """A task made by a worker while it holds its lease (credited to its task)."""
        with self.transaction() as tx:
            task = self._held(tx, task_id, fence)
            return self._insert(
                tx,
                title,
                body,
                "todo",
                parents,
                assignee=task.assignee,
                workspace=task.workspace,
                created_by=task_id,
            )

    # -- inside a transaction ---------------------------------------------------------------------------------
    def _end_run(
        self,
        tx: Tx,
        task_id: int,
        fence: int,
        outcome: str,
        *,
        summary: str | None = None,
        error: str | None = None,
    ) -> None:
        tx.x(
            "UPDATE kanban_runs SET ended_at = ?, outcome = ?, summary = ?, error = ? "
            "WHERE task_id = ? AND fence = ? AND outcome = 'running'",
            (self.clock(), outcome, summary, error, task_id, fence),
        )

    def _failed(self, tx: Tx, task: Task, error: str, outcome: str) -> Task:
        self._end_run(tx, task.id, task.fence, outcome, error=error)
        failures = task.failures + 1
        limit = min(self.breaker, task.max_retries + 1)
        blocked = failures >= limit
        errors = error
        if blocked:  # the circuit breaker: the errors of the failed attempts in a row go with it
            recent = tx.q(
                "SELECT fence, error FROM kanban_runs WHERE task_id = ? AND error IS NOT NULL ORDER BY id DESC LIMIT ?",
                (task.id, failures),
            )
            errors = "\n".join(f"lease {r['fence']}: {r['error']}" for r in reversed(recent))
        tx.x(
            "UPDATE kanban_tasks SET status = ?, failures = ?, error = ?, fence = fence + 1, lease_owner = NULL, "
            "lease_host = NULL, lease_pid = NULL, lease_start = NULL, lease_expires = NULL, updated_at = ? "
            "WHERE id = ? AND fence = ?",
            ("blocked" if blocked else "ready", failures, errors, self.clock(), task.id, task.fence),
        )
        self.event(tx, task.id, outcome, fence=task.fence, error=error)
        if blocked:
            self.event(tx, task.id, "blocked", reason="circuit breaker", failures=failures, errors=errors)
        self.notify(tx)
        return self._task(tx, task.id)
