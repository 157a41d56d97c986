"""CronScheduler: claim due jobs (at most once per slot, see grove.store.cron_jobs), run each as a fresh unattended
Session of the runtime, store its result and deliver it to a chat when the job asks.

`tick()` runs what is due now; `run_forever(stop)` ticks until the event is set (`grove cron daemon`, or `grove
serve` in a thread). A job missed while no scheduler ran runs once at the next tick, not once per missed slot.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grove.store.cron_jobs import Claim, CronJob, CronJobs
from grove.store.db import Database

if TYPE_CHECKING:
    from grove.config import Settings

OUTPUT_CHARS = 4000  # the stored summary of a run's answer (the whole answer is in the run's session)
WORKSPACES_ENV = "GROVE_CRON_WORKSPACES"
Clock = Callable[[], float]


@dataclass(frozen=True)
class RunResult:
    job_id: str
    run_id: int
    status: str  # ok | error
    session_id: str | None
    output: str
    error: str | None = None
    delivery: str | None = None  # None: nothing to deliver; "delivered to X" or "failed: ..."


@dataclass(frozen=True)
class Outcome:
    """What running a job's prompt gave: the session it ran in and its answer (or why it has none)."""

    session_id: str | None
    answer: str
    error: str | None = None


JobRunner = Callable[[CronJob], Outcome]


def _own_workspace(home: Path, job_id: str) -> Path:
    """The job's folder under $GROVE_CRON_WORKSPACES (default $GROVE_HOME/workspaces/cron); as root group-writable
    by the sandbox group, whose rights file tools act with."""
    from grove.config.workspaces import entrance_root
    from grove.sandbox.users import sandbox_folder

    return sandbox_folder(entrance_root(home, "cron", os.environ.get(WORKSPACES_ENV)) / f"job-{job_id}")


def session_runner(settings: Settings) -> JobRunner:
    """Run a job as a fresh unattended session: nobody to ask (what needs approval is denied), source `cron`."""

    def run(job: CronJob) -> Outcome:
        from grove.runtime import Profile, Session

        profile = Profile(
            source="cron",
            model=job.model,
            toolsets=job.toolsets,
            workspace=Path(job.workspace) if job.workspace else _own_workspace(settings.home, job.id),
            approver=None,
            title=f"cron {job.id}: {job.name}"[:120],
            review="thread",  # its experience feeds the skill library; the daemon waits for it below
        )
        session = Session.open(settings, profile)
        try:
            result = session.run_turn(job.prompt)
        except Exception as exc:  # the session exists: keep its id with the error
            return Outcome(session.id, "", f"{type(exc).__name__}: {exc}")
        finally:
            session.close(wait_review=True)
        if result.interrupted or result.budget_exhausted or not result.answer.strip():
            why = "interrupted" if result.interrupted else "the turn ended without an answer"
            return Outcome(session.id, result.answer, why)
        return Outcome(session.id, result.answer)

    return run


class CronScheduler:
    def __init__(
        self,
        settings: Settings,
        clock: Clock = time.time,
        *,
        runner: JobRunner | None = None,
        owner: str | None = None,
        db: Database | None = None,
        on_result: Callable[[RunResult], None] | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.runner = runner or session_runner(settings)
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"
        self.db = db or Database(settings.db_path)  # its own connection: claims are real SQLite transactions
        self.jobs = CronJobs(self.db)
        self.on_result = on_result  # told of each finished run (the daemon prints them)

    def tick(self) -> list[RunResult]:
        """Claim every due job, then run them one after another; each result is stored before the next starts."""
        return [self._run(claim) for claim in self.jobs.claim_due(self.clock(), self.owner)]

    def run_now(self, ref: str) -> RunResult | None:
        """Run one job now, by hand, leaving its schedule as it is; None when another scheduler holds it."""
        from grove.errors import GroveError

        job = self.jobs.get(ref)
        if job is None:
            raise GroveError(f"no cron job '{ref}'; `grove cron list` shows them")
        claims = self.jobs.claim_due(self.clock(), self.owner, job_id=job.id)
        return self._run(claims[0]) if claims else None

    def run_forever(self, stop: threading.Event, poll_seconds: float = 30.0) -> None:
        """Tick until `stop` is set; sleeps until the next due job, at most `poll_seconds` (jobs added by another
        process are seen within that)."""
        while not stop.is_set():
            try:
                self.tick()
            except Exception as exc:  # a broken tick (locked database, ...) must not end the daemon
                import logging

                logging.getLogger("grove.cron").warning("cron tick failed: %s", exc)
            nxt = self.jobs.next_due()
            wait = poll_seconds if nxt is None else min(poll_seconds, max(0.5, nxt - self.clock()))
            stop.wait(wait)

    def close(self) -> None:
        self.db.close()

    # ----------------------------------------------------------------------------------------------------------
    def _run(self, claim: Claim) -> RunResult:
        from grove.security.secrets.redact import redact

        try:
            outcome = self.runner(claim.job)
        except Exception as exc:  # a session that could not even open (bad model spec, ...)
            outcome = Outcome(None, "", f"{type(exc).__name__}: {exc}")
        output = redact(outcome.answer.strip())[:OUTPUT_CHARS]
        error = redact(outcome.error)[:OUTPUT_CHARS] if outcome.error else None
        status = "error" if error else "ok"
        self.jobs.finish(
            claim, now=self.clock(), status=status, session_id=outcome.session_id, output=output, error=error
        )
        delivery = (
            self._deliver(claim, output if status == "ok" else f"failed: {error}")
            if claim.job.deliver
            else None
        )
        result = RunResult(claim.job.id, claim.run_id, status, outcome.session_id, output, error, delivery)
        if self.on_result is not None:
            self.on_result(result)
        return result

    def _deliver(self, claim: Claim, text: str) -> str:
        """Send the run's result to the job's chat; a failure is recorded with the run, never raised."""
        target = claim.job.deliver or ""
        body = f"[grove cron] {claim.job.name}\n\n{text or '(no answer)'}"
        try:
            from grove.gateway.delivery import deliver

            deliver(self.settings, target, body)
            note = f"delivered to {target}"
        except Exception as exc:  # the platform, the network, a missing extra: recorded with the run
            note = f"failed: {type(exc).__name__}: {exc}"[:500]
        self.jobs.set_delivery(claim.run_id, note)
        return note
