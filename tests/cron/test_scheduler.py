"""CronScheduler: a job fires exactly once per slot across restarts and racing schedulers (fake clock)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from grove.config import Settings
from grove.cron.scheduler import CronScheduler, Outcome
from grove.store.cron_jobs import CronJob, CronJobs
from grove.store.db import Database

T0 = 1_800_000_000.0  # a fixed instant; the clock below is moved by hand


class Clock:
    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class Recorder:
    def __init__(self) -> None:
        self.runs: list[tuple[str, float]] = []
        self.lock = threading.Lock()

    def runner(self, clock: Clock):  # type: ignore[no-untyped-def]
        def run(job: CronJob) -> Outcome:
            with self.lock:
                self.runs.append((job.id, clock()))
            return Outcome("sess-1", f"answer of {job.name}")

        return run


def add(settings: Settings, schedule: str, now: float = T0, **kw: object) -> CronJob:
    db = Database(settings.db_path)
    try:
        return CronJobs(db).add(schedule=schedule, prompt="say hi", now=now, **kw)  # type: ignore[arg-type]
    finally:
        db.close()


def test_fires_once_per_slot_across_a_restart(settings: Settings) -> None:
    clock, rec = Clock(), Recorder()
    job = add(settings, "every 1h")
    first = CronScheduler(settings, clock, runner=rec.runner(clock), owner="a")
    assert first.tick() == []  # not due yet
    clock.t = T0 + 3600
    [result] = first.tick()
    assert (result.status, result.output, result.session_id) == ("ok", "answer of say hi", "sess-1")
    assert first.tick() == []  # same instant: nothing more
    first.close()
    second = CronScheduler(settings, clock, runner=rec.runner(clock), owner="b")  # the daemon restarted
    assert second.tick() == []
    clock.t = T0 + 7200
    assert len(second.tick()) == 1
    assert [r[1] for r in rec.runs] == [T0 + 3600, T0 + 7200]
    runs = second.jobs.runs(job.id)
    assert [r.status for r in runs] == ["ok", "ok"] and runs[0].output == "answer of say hi"
    second.close()


def test_missed_slots_while_down_run_once(settings: Settings) -> None:
    clock, rec = Clock(), Recorder()
    add(settings, "30m")
    clock.t = T0 + 10 * 3600  # down for ten hours: twenty slots missed
    sched = CronScheduler(settings, clock, runner=rec.runner(clock))
    assert len(sched.tick()) == 1 and sched.tick() == []
    clock.t += 1800
    assert len(sched.tick()) == 1
    assert len(rec.runs) == 2
    sched.close()


def test_two_schedulers_racing_never_double_run(settings: Settings) -> None:
    clock, rec = Clock(), Recorder()
    jobs = [add(settings, "every 1h", name=f"j{i}") for i in range(5)]
    clock.t = T0 + 3600
    scheds = [CronScheduler(settings, clock, runner=rec.runner(clock), owner=f"s{i}") for i in range(4)]
    barrier = threading.Barrier(len(scheds))

    def go(s: CronScheduler) -> None:
        barrier.wait()
        s.tick()

    threads = [threading.Thread(target=go, args=(s,)) for s in scheds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r[0] for r in rec.runs) == sorted(j.id for j in jobs)
    for s in scheds:
        s.close()


def test_a_stale_claim_cannot_run_the_slot_again(settings: Settings) -> None:
    """A scheduler that read the job before a rival claimed it: its compare-and-set finds next_run_at moved."""
    clock = Clock(T0 + 3600)
    job = add(settings, "every 1h")
    a, b = Database(settings.db_path), Database(settings.db_path)
    assert len(CronJobs(a).claim_due(clock(), "a")) == 1
    assert CronJobs(b).claim_due(clock(), "b") == []
    # even by hand, a job whose run is in flight (lease held) is not run again
    assert CronJobs(b).claim_due(clock(), "b", job_id=job.id) == []
    a.close()
    b.close()


def test_a_dead_scheduler_loses_its_run_and_the_job_goes_on(settings: Settings) -> None:
    clock = Clock(T0 + 3600)
    job = add(settings, "every 1h")
    db = Database(settings.db_path)
    jobs = CronJobs(db)
    [claim] = jobs.claim_due(clock(), "dead")  # claimed, then the process died before finishing
    clock.t = T0 + 3600 * 3  # after the lease (1 h) and past the next slot
    rec = Recorder()
    sched = CronScheduler(settings, clock, runner=rec.runner(clock), owner="alive")
    assert len(sched.tick()) == 1
    statuses = {r.id: r.status for r in jobs.runs(job.id)}
    assert statuses[claim.run_id] == "lost" and sorted(statuses.values()) == ["lost", "ok"]
    sched.close()
    db.close()


def test_one_shot_runs_once(settings: Settings) -> None:
    clock, rec = Clock(), Recorder()
    job = add(settings, "2027-01-15T10:00:00+00:00")
    clock.t = 1_800_000_000.0 + 10**8  # well after
    sched = CronScheduler(settings, clock, runner=rec.runner(clock))
    assert len(sched.tick()) == 1 and sched.tick() == []
    clock.t += 10**6
    assert sched.tick() == []
    assert sched.jobs.get(job.id).next_run_at is None  # type: ignore[union-attr]
    sched.close()


def test_cron_expression_slots(settings: Settings) -> None:
    pytest.importorskip("croniter", reason="5-field cron expressions need the cron extra")
    clock, rec = Clock(T0), Recorder()  # T0 is 2027-01-15T08:00:00Z, a whole hour
    job = add(settings, "*/15 * * * *")
    assert job.next_run_at == T0 + 900
    sched = CronScheduler(settings, clock, runner=rec.runner(clock))
    for minute in (14, 15, 16, 29, 30, 31):
        clock.t = T0 + minute * 60
        sched.tick()
    assert [int((t - T0) / 60) for _, t in rec.runs] == [15, 30]
    sched.close()


def test_failures_are_recorded_and_delivery_failures_too(settings: Settings) -> None:
    clock = Clock(T0 + 3600)
    add(settings, "every 1h", deliver="nowhere:123")

    def boom(job: CronJob) -> Outcome:
        raise RuntimeError("model unreachable")

    sched = CronScheduler(settings, clock, runner=boom)
    [result] = sched.tick()
    assert result.status == "error" and "model unreachable" in (result.error or "")
    assert (result.delivery or "").startswith("failed:")
    [run] = sched.jobs.runs()
    assert run.status == "error" and run.delivery == result.delivery
    sched.close()


def test_delivery_goes_through_the_gateway(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    import grove.gateway.delivery as delivery

    sent: list[tuple[str, str]] = []
    monkeypatch.setattr(delivery, "deliver", lambda s, target, text: sent.append((target, text)))
    clock, rec = Clock(T0 + 3600), Recorder()
    add(settings, "every 1h", deliver="telegram:42", name="daily")
    sched = CronScheduler(settings, clock, runner=rec.runner(clock))
    [result] = sched.tick()
    assert result.delivery == "delivered to telegram:42"
    assert sent and sent[0][0] == "telegram:42" and "answer of daily" in sent[0][1]
    sched.close()


def test_run_forever_stops(settings: Settings, tmp_path: Path) -> None:
    clock, rec = Clock(T0 + 3600), Recorder()
    add(settings, "every 1h")
    sched = CronScheduler(settings, clock, runner=rec.runner(clock))
    stop = threading.Event()
    thread = threading.Thread(target=sched.run_forever, args=(stop, 0.01))
    thread.start()
    while not rec.runs:
        stop.wait(0.01)
    stop.set()
    thread.join(5)
    assert not thread.is_alive() and len(rec.runs) == 1
    sched.close()


def test_a_paused_job_does_not_run_and_resumes_from_now(settings: Settings) -> None:
    clock, rec = Clock(), Recorder()
    job = add(settings, "every 1h")
    sched = CronScheduler(settings, clock, runner=rec.runner(clock))
    paused = sched.jobs.set_enabled(job.id, False, clock())
    assert not paused.enabled
    clock.t = T0 + 5 * 3600  # five slots while paused
    assert sched.tick() == [] and rec.runs == []
    resumed = sched.jobs.set_enabled(job.id, True, clock())
    assert resumed.enabled and resumed.next_run_at == clock.t + 3600  # missed slots are skipped
    assert sched.tick() == []
    clock.t += 3600
    assert len(sched.tick()) == 1 and [r[1] for r in rec.runs] == [T0 + 6 * 3600]
    sched.close()


def test_resuming_a_one_shot_that_already_ran_keeps_it_done(settings: Settings) -> None:
    clock, rec = Clock(), Recorder()
    job = add(settings, "2027-01-15T08:30:00+00:00")  # T0 + 1800
    sched = CronScheduler(settings, clock, runner=rec.runner(clock))
    clock.t = T0 + 1800
    assert len(sched.tick()) == 1
    sched.jobs.set_enabled(job.id, False, clock())
    assert sched.jobs.set_enabled(job.id, True, clock()).next_run_at is None
    clock.t += 10 * 3600
    assert sched.tick() == [] and len(rec.runs) == 1
    sched.close()
