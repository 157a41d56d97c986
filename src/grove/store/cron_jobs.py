"""The cron tables of state.db: jobs, their claims and their runs.

At most once per slot: a run is claimed in one transaction that moves the job's next_run_at past now (compare-
and-set on the value read) and takes its lease; only then does the job run. Two schedulers racing for one slot:
one claim succeeds, the other finds next_run_at changed. A scheduler that dies mid-run loses nothing but that run
(marked lost when its lease expires); missed slots while no scheduler ran collapse into one run.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
from dataclasses import dataclass
from typing import Any

from grove.errors import GroveError
from grove.store.cron_schedule import parse_schedule
from grove.store.db import Database

LEASE_SECONDS = 3600.0  # a claimed run longer than this is taken for dead: its job may run again


@dataclass(frozen=True)
class CronJob:
    id: str
    name: str
    schedule: str
    prompt: str
    deliver: str | None
    model: str | None
    toolsets: list[str] | None
    workspace: str | None
    enabled: bool
    next_run_at: float | None  # None: a one-shot that ran
    run_count: int
    last_run_at: float | None
    created_at: float
    created_by: str | None


@dataclass(frozen=True)
class CronRun:
    id: int
    job_id: str
    scheduled_for: float
    started_at: float
    finished_at: float | None
    owner: str
    status: str  # running | ok | error | lost
    session_id: str | None
    output: str | None
    error: str | None
    delivery: str | None  # None: nothing to deliver; "delivered to X"; "failed: ..."


@dataclass(frozen=True)
class Claim:
    job: CronJob
    run_id: int
    scheduled_for: float


def _job(row: sqlite3.Row) -> CronJob:
    d: dict[str, Any] = dict(row)
    return CronJob(
        id=d["id"],
        name=d["name"],
        schedule=d["schedule"],
        prompt=d["prompt"],
        deliver=d["deliver"],
        model=d["model"],
        toolsets=json.loads(d["toolsets"]) if d["toolsets"] is not None else None,
        workspace=d["workspace"],
        enabled=bool(d["enabled"]),
        next_run_at=d["next_run_at"],
        run_count=d["run_count"],
        last_run_at=d["last_run_at"],
        created_at=d["created_at"],
        created_by=d["created_by"],
    )


class CronJobs:
    """Jobs and runs over one Database (its own connection per scheduler process)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- jobs ---------------------------------------------------------------------------------------------------
    def add(
        self,
        *,
        schedule: str,
        prompt: str,
        now: float,
        name: str | None = None,
        deliver: str | None = None,
        model: str | None = None,
        toolsets: list[str] | None = None,
        workspace: str | None = None,
        created_by: str | None = None,
    ) -> CronJob:
        sched = parse_schedule(schedule)
        if not prompt.strip():
            raise GroveError("a cron job needs a prompt: what the agent should do on each run")
        if deliver is not None and not re.fullmatch(r"[A-Za-z0-9_-]+:\S+", deliver.strip()):
            raise GroveError(
                f"deliver target '{deliver}' must look like '<platform>:<chat id>', e.g. telegram:12345"
            )
        job_id = secrets.token_hex(4)
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO cron_jobs (id, name, schedule, prompt, deliver, model, toolsets, workspace,"
                " next_run_at, created_at, created_by) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    job_id,
                    (name or prompt.strip().splitlines()[0])[:80],
                    sched.text,
                    prompt,
                    deliver,
                    model,
                    json.dumps(toolsets) if toolsets is not None else None,
                    workspace,
                    sched.first_run(now),
                    now,
                    created_by,
                ),
            )
        job = self.get(job_id)
        assert job is not None
        return job

    def get(self, ref: str) -> CronJob | None:
        """A job by id, unique id prefix, or name."""
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT * FROM cron_jobs WHERE id = ? OR name = ? OR id LIKE ? ORDER BY id = ? DESC",
                (ref, ref, f"{ref}%", ref),
            ).fetchall()
        if not rows:
            return None
        if len(rows) > 1 and rows[0]["id"] != ref:
            raise GroveError(
                f"'{ref}' names {len(rows)} cron jobs ({', '.join(r['id'] for r in rows)}); give the id"
            )
        return _job(rows[0])

    def list(self) -> list[CronJob]:
        with self.db.lock:
            rows = self.db.conn.execute("SELECT * FROM cron_jobs ORDER BY created_at, id").fetchall()
        return [_job(r) for r in rows]

    def remove(self, ref: str) -> CronJob:
        job = self.get(ref)
        if job is None:
            raise GroveError(f"no cron job '{ref}'; `grove cron list` shows them")
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM cron_jobs WHERE id = ?", (job.id,))
        return job

    def set_enabled(self, ref: str, enabled: bool, now: float) -> CronJob:
        """Pause or resume a job. A resumed job's next run is computed from now: the slots it missed while
        paused do not run at once (a one-shot whose time passed runs once, as when it was added late)."""
        job = self.get(ref)
        if job is None:
            raise GroveError(f"no cron job '{ref}'; `grove cron list` shows them")
        with self.db.transaction() as conn:
            if enabled and not job.enabled:
                ran_once = parse_schedule(job.schedule).kind == "once" and job.run_count > 0
                next_run = None if ran_once else parse_schedule(job.schedule).first_run(now)
                conn.execute(
                    "UPDATE cron_jobs SET enabled = 1, next_run_at = ? WHERE id = ?", (next_run, job.id)
                )
            else:
                conn.execute("UPDATE cron_jobs SET enabled = ? WHERE id = ?", (int(enabled), job.id))
        updated = self.get(job.id)
        assert updated is not None
        return updated

    # -- claims and runs ----------------------------------------------------------------------------------------
    def claim_due(self, now: float, owner: str, job_id: str | None = None) -> list[Claim]:
        """Claim every due job (or the named one, due or not) in one transaction: its next run time moves past
        now and its lease is taken before it runs, so a crash or a rival scheduler cannot run the slot twice."""
        claims: list[Claim] = []
        with self.db.transaction() as conn:
            # runs whose scheduler died: the lease expired with the run still open
            conn.execute(
                "UPDATE cron_runs SET status = 'lost', finished_at = ?, error = 'the scheduler stopped during"
                " the run' WHERE status = 'running' AND job_id IN (SELECT id FROM cron_jobs"
                " WHERE lease_until IS NOT NULL AND lease_until < ?)",
                (now, now),
            )
            if job_id is None:
                rows = conn.execute(
                    "SELECT * FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?"
                    " AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_run_at",
                    (now, now),
                ).fetchall()
            else:
                rows = conn.execute(
                    "SELECT * FROM cron_jobs WHERE id = ? AND (lease_until IS NULL OR lease_until < ?)",
                    (job_id, now),
                ).fetchall()
            for row in rows:
                job = _job(row)
                # missed slots collapse into this one run: the next one is after now, not after the old one;
                # a run by hand (job_id given) leaves the schedule as it was
                nxt = parse_schedule(job.schedule).next_after(now) if job_id is None else job.next_run_at
                cur = conn.execute(
                    "UPDATE cron_jobs SET next_run_at = ?, lease_owner = ?, lease_until = ?,"
                    " run_count = run_count + 1, last_run_at = ? WHERE id = ? AND next_run_at IS ?"
                    " AND (lease_until IS NULL OR lease_until < ?)",
                    (nxt, owner, now + LEASE_SECONDS, now, job.id, job.next_run_at, now),
                )
                if cur.rowcount != 1:
                    continue  # changed under us: someone else has it
                run = conn.execute(
                    "INSERT INTO cron_runs (job_id, scheduled_for, started_at, owner, status)"
                    " VALUES (?, ?, ?, ?, 'running')",
                    (job.id, job.next_run_at if job.next_run_at is not None else now, now, owner),
                )
                claims.append(Claim(job, int(run.lastrowid or 0), job.next_run_at or now))
        return claims

    def finish(
        self,
        claim: Claim,
        *,
        now: float,
        status: str,
        session_id: str | None,
        output: str | None,
        error: str | None,
    ) -> None:
        """Record the run's result and free the job's lease (only if this run still holds it)."""
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE cron_runs SET status = ?, finished_at = ?, session_id = ?, output = ?, error = ?"
                " WHERE id = ?",
                (status, now, session_id, output, error, claim.run_id),
            )
            conn.execute(
                "UPDATE cron_jobs SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?",
                (claim.job.id, self._owner_of(conn, claim.run_id)),
            )

    def set_delivery(self, run_id: int, delivery: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE cron_runs SET delivery = ? WHERE id = ?", (delivery, run_id))

    @staticmethod
    def _owner_of(conn: sqlite3.Connection, run_id: int) -> str | None:
        row = conn.execute("SELECT owner FROM cron_runs WHERE id = ?", (run_id,)).fetchone()
        return row["owner"] if row else None

    def runs(self, job_id: str | None = None, limit: int = 20) -> list[CronRun]:
        with self.db.lock:
            rows = self.db.conn.execute(
                "SELECT * FROM cron_runs WHERE (? IS NULL OR job_id = ?) ORDER BY id DESC LIMIT ?",
                (job_id, job_id, limit),
            ).fetchall()
        return [CronRun(**dict(r)) for r in rows]

    def next_due(self) -> float | None:
        with self.db.lock:
            row = self.db.conn.execute(
                "SELECT min(next_run_at) FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL"
            ).fetchone()
        return row[0] if row else None
