"""The board's one interface, written once in portable SQL over a backend's transactions: adding and reading
tasks, dependency promotion, decomposition links, retry, archive and stats. Leases live in `leases.py`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from grove.errors import GroveError
from grove.kanban.model import STATUSES, Comment, Event, Run, Task, UnknownTask

TASK_COLUMNS = (
    "id, title, body, status, assignee, priority, skills, workspace, idempotency_key, max_retries, failures, "
    "fence, lease_owner, lease_host, lease_pid, lease_start, lease_expires, result, artifacts, error, "
    "created_by, created_at, updated_at, completed_at"
)


class Tx(Protocol):
    """One open transaction: `q` returns rows as dicts, `x` returns the number of rows changed."""

    def q(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]: ...

    def x(self, sql: str, params: Iterable[Any] = ()) -> int: ...


def task_from_row(row: dict[str, Any], parents: list[int] | None = None) -> Task:
    data = dict(row)
    data["skills"] = json.loads(data.get("skills") or "[]")
    data["artifacts"] = json.loads(data.get("artifacts") or "[]")
    return Task(**data, parents=parents or [])


class BoardCore:
    """Shared logic; a backend supplies `transaction()` (write: serialised claims), `notify()` and `wait()`."""

    dialect = "sqlite"
    skip_locked = ""  # PostgreSQL: " FOR UPDATE SKIP LOCKED"
    breaker = 2  # consecutive failures that block a task

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    # -- backend hooks ----------------------------------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[Tx]:
        raise NotImplementedError

    def notify(self, tx: Tx) -> None:
        """Wake waiting dispatchers once this transaction commits (PostgreSQL NOTIFY; SQLite: they poll)."""

    def claim_lock(self, tx: Tx) -> None:
        """Serialise claims that count the board's running tasks (SQLite's BEGIN IMMEDIATE already does)."""

    def wait(self, timeout: float) -> bool:
        """Sleep until the board changes or `timeout` passes; True when woken by a change."""
        time.sleep(timeout)
        return False

    def close(self) -> None:
        raise NotImplementedError

    # -- helpers ----------------------------------------------------------------------------------------------
    def event(self, tx: Tx, task_id: int | None, kind: str, **data: Any) -> None:
        tx.x(
            "INSERT INTO kanban_events (task_id, kind, data, created_at) VALUES (?, ?, ?, ?)",
            (task_id, kind, json.dumps(data, ensure_ascii=False, default=str), self.clock()),
        )

    def _task(self, tx: Tx, task_id: int, lock: bool = False) -> Task:
        rows = tx.q(
            f"SELECT {TASK_COLUMNS} FROM kanban_tasks WHERE id = ?"
            + (" FOR UPDATE" if lock and self.dialect == "postgres" else ""),
            (task_id,),
        )
        if not rows:
            raise UnknownTask(f"no kanban task #{task_id}: see `grove kanban list`")
        parents = [
            r["parent_id"]
            for r in tx.q(
                "SELECT parent_id FROM kanban_deps WHERE task_id = ? ORDER BY parent_id", (task_id,)
            )
        ]
        return task_from_row(rows[0], parents)

    def _insert(
        self, tx: Tx, title: str, body: str, status: str, parents: Iterable[int], **fields: Any
    ) -> Task:
        if not title.strip():
            raise GroveError("a kanban task needs a title")
        key = fields.get("idempotency_key")
        if key:
            found = tx.q("SELECT id FROM kanban_tasks WHERE idempotency_key = ?", (key,))
            if found:
                return self._task(tx, found[0]["id"])
        parents = list(dict.fromkeys(parents))
        for p in parents:
            self._task(tx, p)  # refuses an unknown parent
        now = self.clock()
        row = tx.q(
            "INSERT INTO kanban_tasks (title, body, status, assignee, priority, skills, workspace, idempotency_key,"
            " max_retries, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id",
            (
                title.strip(),
                body,
                status,
                fields.get("assignee"),
                int(fields.get("priority") or 0),
                json.dumps(list(fields.get("skills") or [])),
                fields.get("workspace"),
                key or None,
                3 if fields.get("max_retries") is None else int(fields["max_retries"]),  # 0 means no retry
                fields.get("created_by"),
                now,
                now,
            ),
        )
        if not row:  # the same key added at once elsewhere (PostgreSQL: its commit came first): that task
            found = tx.q("SELECT id FROM kanban_tasks WHERE idempotency_key = ?", (key,))
            return self._task(tx, found[0]["id"])
        task_id = int(row[0]["id"])
        for p in parents:
            tx.x("INSERT INTO kanban_deps (task_id, parent_id) VALUES (?, ?)", (task_id, p))
        self.event(
            tx, task_id, "created", title=title, status=status, parents=parents, by=fields.get("created_by")
        )
        if status == "todo":
            self._promote(tx, [task_id])
        self.notify(tx)
        return self._task(tx, task_id)

    def _promote(self, tx: Tx, ids: list[int] | None = None) -> list[int]:
        """todo -> ready for every task (or those in `ids`) whose parents all completed."""
        where = (
            "status = 'todo' AND NOT EXISTS (SELECT 1 FROM kanban_deps d JOIN kanban_tasks p ON p.id = d.parent_id"
            " WHERE d.task_id = kanban_tasks.id AND p.completed_at IS NULL)"
        )
        params: list[Any] = [self.clock()]
        if ids is not None:
            where += f" AND id IN ({', '.join('?' for _ in ids)})"
            params += ids
        rows = tx.q(
            f"UPDATE kanban_tasks SET status = 'ready', updated_at = ? WHERE {where} RETURNING id", params
        )
        promoted = sorted(int(r["id"]) for r in rows)
        for task_id in promoted:
            self.event(tx, task_id, "promoted")
        if promoted:
            self.notify(tx)
        return promoted

    # -- the interface ----------------------------------------------------------------------------------------
    def add(
        self,
        title: str,
        body: str = "",
        *,
        parents: Iterable[int] = (),
        triage: bool = False,
        assignee: str | None = None,
        priority: int = 0,
        skills: Iterable[str] = (),
        workspace: str | None = None,
        idempotency_key: str | None = None,
        max_retries: int = 3,
        created_by: int | None = None,
    ) -> Task:
        """A new task: `triage` (to be decomposed), else `todo`, promoted to `ready` at once when its parents are
        done. The same idempotency key returns the task it made before."""
        with self.transaction() as tx:
            return self._insert(
                tx,
                title,
                body,
                "triage" if triage else "todo",
                parents,
                assignee=assignee,
                priority=priority,
                skills=list(skills),
                workspace=workspace,
                idempotency_key=idempotency_key,
                max_retries=max_retries,
                created_by=created_by,
            )

    def setting(self, key: str) -> str | None:
        """A board-wide setting (`backend`: where every worker's tools act), None when unset."""
        with self.transaction() as tx:
            rows = tx.q("SELECT value FROM kanban_settings WHERE key = ?", (key,))
        return str(rows[0]["value"]) if rows else None

    def set_setting(self, key: str, value: str | None) -> None:
        with self.transaction() as tx:
            tx.x("DELETE FROM kanban_settings WHERE key = ?", (key,))
            if value is not None:
                tx.x("INSERT INTO kanban_settings (key, value) VALUES (?, ?)", (key, value))
            self.event(tx, None, "setting", key=key, value=value)

    def get(self, task_id: int) -> Task:
        with self.transaction() as tx:
            return self._task(tx, task_id)

    def tasks(self, status: str | None = None) -> list[Task]:
        if status is not None and status not in STATUSES:
            raise GroveError(f"unknown status {status!r}: one of {', '.join(STATUSES)}")
        with self.transaction() as tx:
            sql = f"SELECT {TASK_COLUMNS} FROM kanban_tasks"
            rows = tx.q(
                sql + (" WHERE status = ?" if status else "") + " ORDER BY id", (status,) if status else ()
            )
            deps: dict[int, list[int]] = {}
            for d in tx.q("SELECT task_id, parent_id FROM kanban_deps ORDER BY parent_id"):
                deps.setdefault(int(d["task_id"]), []).append(int(d["parent_id"]))
        return [task_from_row(r, deps.get(int(r["id"]))) for r in rows]

    def runs(self, task_id: int | None = None) -> list[Run]:
        with self.transaction() as tx:
            sql = (
                "SELECT * FROM kanban_runs"
                + (" WHERE task_id = ?" if task_id is not None else "")
                + " ORDER BY id"
            )
            return [Run(**r) for r in tx.q(sql, (task_id,) if task_id is not None else ())]

    def comments(self, task_id: int) -> list[Comment]:
        with self.transaction() as tx:
            return [
                Comment(**r)
                for r in tx.q("SELECT * FROM kanban_comments WHERE task_id = ? ORDER BY id", (task_id,))
            ]

    def events(self, task_id: int | None = None) -> list[Event]:
        with self.transaction() as tx:
            sql = (
                "SELECT * FROM kanban_events"
                + (" WHERE task_id = ?" if task_id is not None else "")
                + " ORDER BY id"
            )
            rows = tx.q(sql, (task_id,) if task_id is not None else ())
        return [Event(**{**r, "data": json.loads(r["data"])}) for r in rows]

    def promote(self) -> list[int]:
        with self.transaction() as tx:
            return self._promote(tx)

    def comment(self, task_id: int, author: str, body: str) -> Comment:
        with self.transaction() as tx:
            return self._comment(tx, task_id, author, body)

    def comment_once(self, task_id: int, author: str, body: str, prefix: str = "") -> bool:
        """Add the comment unless the task has one by `author` starting with `prefix`, checked under the task's
        lock (two processes labelling one card write one label); False when one was there."""
        with self.transaction() as tx:
            self._task(tx, task_id, lock=True)
            found = tx.q(
                "SELECT body FROM kanban_comments WHERE task_id = ? AND author = ?", (task_id, author)
            )
            if any(str(r["body"]).startswith(prefix) for r in found):
                return False
            self._comment(tx, task_id, author, body)
            return True

    def _comment(self, tx: Tx, task_id: int, author: str, body: str) -> Comment:
        self._task(tx, task_id)
        now = self.clock()
        row = tx.q(
            "INSERT INTO kanban_comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?) RETURNING id",
            (task_id, author, body, now),
        )
        self.event(tx, task_id, "comment", author=author)
        return Comment(int(row[0]["id"]), task_id, author, body, now)

    def decompose(self, task_id: int, children: list[tuple[str, str]]) -> list[Task]:
        """A triage task split into children: they become its parents (it waits for them), and it moves to todo.
        No children: it moves to todo as one piece of work."""
        with self.transaction() as tx:
            task = self._task(tx, task_id, lock=True)
            if task.status != "triage":
                return []
            made = [
                self._insert(
                    tx,
                    title,
                    body,
                    "todo",
                    (),
                    assignee=task.assignee,
                    priority=task.priority,
                    workspace=task.workspace,
                    created_by=task_id,
                    idempotency_key=f"decompose:{task_id}:{i}",
                )
                for i, (title, body) in enumerate(children)
            ]
            for child in made:
                tx.x("INSERT INTO kanban_deps (task_id, parent_id) VALUES (?, ?)", (task_id, child.id))
            tx.x(
                "UPDATE kanban_tasks SET status = 'todo', updated_at = ? WHERE id = ?",
                (self.clock(), task_id),
            )
            self.event(tx, task_id, "decomposed", children=[c.id for c in made])
            self._promote(tx, [task_id])
            return made

    def retry(self, task_id: int) -> Task:
        """A blocked (or review) task back to ready with its failure count reset."""
        with self.transaction() as tx:
            task = self._task(tx, task_id, lock=True)
            if task.status not in ("blocked", "review", "done", "archived"):
                raise GroveError(
                    f"task #{task_id} is {task.status}; only blocked, review or done tasks can be retried"
                )
            tx.x(
                "UPDATE kanban_tasks SET status = 'todo', failures = 0, error = NULL, completed_at = NULL, "
                "updated_at = ? WHERE id = ?",
                (self.clock(), task_id),
            )
            self.event(tx, task_id, "retried", was=task.status)
            self._promote(tx, [task_id])
            self.notify(tx)
            return self._task(tx, task_id)

    def archive(self, task_id: int) -> Task:
        with self.transaction() as tx:
            task = self._task(tx, task_id, lock=True)
            if task.status == "running":
                raise GroveError(f"task #{task_id} is running; wait for it or let its lease expire first")
            tx.x(
                "UPDATE kanban_tasks SET status = 'archived', updated_at = ? WHERE id = ?",
                (self.clock(), task_id),
            )
            self.event(tx, task_id, "archived", was=task.status)
            return self._task(tx, task_id)

    def stats(self, window: float = 3600.0) -> dict[str, Any]:
        """Counts by status; throughput over the last `window` seconds; mean wait (created -> first claim) and
        run time of finished runs; reclaims."""
        now = self.clock()
        with self.transaction() as tx:
            counts = {
                r["status"]: int(r["n"])
                for r in tx.q("SELECT status, count(*) AS n FROM kanban_tasks GROUP BY status")
            }
            done = tx.q("SELECT count(*) AS n FROM kanban_tasks WHERE completed_at >= ?", (now - window,))[0][
                "n"
            ]
            runs = tx.q("SELECT started_at, ended_at, outcome FROM kanban_runs WHERE ended_at IS NOT NULL")
            waits = tx.q(
                "SELECT t.created_at AS created, min(r.started_at) AS first FROM kanban_tasks t "
                "JOIN kanban_runs r ON r.task_id = t.id GROUP BY t.id, t.created_at"
            )
            reclaims = tx.q("SELECT count(*) AS n FROM kanban_events WHERE kind = 'reclaimed'")[0]["n"]
        run_times = [r["ended_at"] - r["started_at"] for r in runs if r["outcome"] == "done"]
        wait_times = [w["first"] - w["created"] for w in waits]
        return {
            "counts": {s: counts.get(s, 0) for s in STATUSES},
            "done_per_min": round(int(done) / (window / 60.0), 3),
            "mean_wait_s": round(sum(wait_times) / len(wait_times), 3) if wait_times else None,
            "mean_run_s": round(sum(run_times) / len(run_times), 3) if run_times else None,
            "runs": len(runs),
            "failed_runs": sum(1 for r in runs if r["outcome"] in ("failed", "reclaimed")),
            "reclaims": int(reclaims),
        }
