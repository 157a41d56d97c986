"""`grove cron add | list | remove | run | runs | daemon`: prompts that run on a schedule as unattended sessions."""

from __future__ import annotations

import json
import signal
import threading
import time
from dataclasses import asdict
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load, split_csv

if TYPE_CHECKING:
    from grove.cron.scheduler import RunResult
    from grove.store.cron_jobs import CronJobs

app = typer.Typer(
    help="Scheduled jobs: a prompt run as a fresh unattended session on a schedule, its result stored and "
    "optionally sent to a chat. `grove cron daemon` (or `grove serve --cron`) runs them.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _jobs() -> CronJobs:
    from grove.store.cron_jobs import CronJobs
    from grove.store.db import Database

    return CronJobs(Database(load().db_path))


def _when(ts: float | None) -> str:
    return "-" if ts is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


@app.command("add")
def add(
    schedule: str = typer.Argument(
        ..., help="'30m', 'every 2h', a cron expression ('0 9 * * 1-5') or an ISO time (one run)."
    ),
    prompt: str = typer.Argument(..., help="What the agent does on each run (a fresh session each time)."),
    name: str | None = typer.Option(None, "--name", "-n", help="A short name (default: the prompt's start)."),
    deliver: str | None = typer.Option(
        None, "--deliver", "-d", help="Send each result to a chat: <platform>:<chat id>, e.g. telegram:12345."
    ),
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec (default: your settings)."),
    toolsets: str | None = typer.Option(None, "--toolsets", "-t", help="Comma-separated toolsets."),
    workspace: str | None = typer.Option(
        None,
        "--workspace",
        "-w",
        help="Folder the job works in (default: its own under $GROVE_HOME/workspaces/cron).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the job as JSON."),
) -> None:
    """Add a job."""
    from pathlib import Path

    from grove.errors import GroveError

    settings = load()
    wanted = split_csv(toolsets)
    try:
        if model is not None:
            from grove.llm.spec import parse_spec

            parse_spec(model)
        if wanted is not None:
            from grove.tools.builtin import builtin_registry

            builtin_registry().select(wanted)  # an unknown toolset fails now, not at 3 a.m.
        if workspace is not None and not Path(workspace).is_dir():
            raise GroveError(f"workspace '{workspace}' is not a folder; create it or leave --workspace out")
        jobs = _jobs()
        job = jobs.add(
            schedule=schedule,
            prompt=prompt,
            now=time.time(),
            name=name,
            deliver=deliver,
            model=model,
            toolsets=wanted,
            workspace=str(Path(workspace).resolve()) if workspace else None,
            created_by="cli",
        )
    except GroveError as e:
        fail(str(e), code=2)
    del settings
    if as_json:
        print(json.dumps(asdict(job)))
        return
    print(f"added cron job {job.id} ({job.name!r}), first run {_when(job.next_run_at)}")
    print("jobs run while `grove cron daemon` (or `grove serve --cron`) is running")


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json", help="One JSON object per job.")) -> None:
    """List jobs with their next run and last result."""
    jobs = _jobs()
    rows = jobs.list()
    if as_json:
        for j in rows:
            print(json.dumps(asdict(j)))
        return
    if not rows:
        print("no cron jobs; add one: grove cron add 'every 1h' \"check the build and summarise\"")
        return
    print(f"{'id':<9} {'next run':<17} {'runs':>4}  {'last':<7} {'schedule':<16} name")
    for j in rows:
        last = jobs.runs(j.id, limit=1)
        status = last[0].status if last else "-"
        when = _when(j.next_run_at) if j.enabled else "paused"
        print(f"{j.id:<9} {when:<17} {j.run_count:>4}  {status:<7} {j.schedule:<16} {j.name}")


@app.command("remove")
def remove(job: str = typer.Argument(..., help="The job's id (or a unique prefix) or name.")) -> None:
    """Remove a job (its past runs stay in the history)."""
    from grove.errors import GroveError

    try:
        gone = _jobs().remove(job)
    except GroveError as e:
        fail(str(e), code=2)
    print(f"removed cron job {gone.id} ({gone.name!r})")


@app.command("pause")
def pause(job: str = typer.Argument(..., help="The job's id (or a unique prefix) or name.")) -> None:
    """Stop a job from running until `grove cron resume` (it keeps its history)."""
    _set_enabled(job, False)


@app.command("resume")
def resume(job: str = typer.Argument(..., help="The job's id (or a unique prefix) or name.")) -> None:
    """Run a paused job again from its next slot (slots missed while paused are skipped)."""
    _set_enabled(job, True)


def _set_enabled(ref: str, enabled: bool) -> None:
    from grove.errors import GroveError

    try:
        job = _jobs().set_enabled(ref, enabled, time.time())
    except GroveError as e:
        fail(str(e), code=2)
    state = f"resumed; next run {_when(job.next_run_at)}" if enabled else "paused"
    print(f"cron job {job.id} ({job.name!r}) {state}")


@app.command("runs")
def runs(
    job: str | None = typer.Argument(None, help="Only this job's runs."),
    limit: int = typer.Option(20, "--limit", min=1),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per run."),
) -> None:
    """Show recent runs: status, session id (`grove sessions show ID`), output summary, delivery."""
    jobs = _jobs()
    job_id = None
    if job is not None:
        found = jobs.get(job)
        if found is None:
            fail(f"no cron job '{job}'; `grove cron list` shows them", code=2)
        job_id = found.id
    for r in jobs.runs(job_id, limit):
        if as_json:
            print(json.dumps(asdict(r)))
            continue
        text = (r.output or r.error or "").replace("\n", " ")
        print(
            f"#{r.id} {r.job_id} {_when(r.started_at)} {r.status:<7} session={r.session_id or '-'}  {text[:80]}"
        )
        if r.delivery:
            print(f"    delivery: {r.delivery}")


def _print_result(result: RunResult, as_json: bool) -> None:
    data = asdict(result)
    if as_json:
        print(json.dumps(data))
        return
    print(f"run #{data['run_id']} of {data['job_id']}: {data['status']} (session {data['session_id']})")
    print(data["output"] or data["error"] or "")
    if data["delivery"]:
        print(f"delivery: {data['delivery']}")


@app.command("run")
def run(
    job: str = typer.Argument(..., help="The job's id (or a unique prefix) or name."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Run a job now, by hand (its schedule stays as it is)."""
    from grove.cron.scheduler import CronScheduler
    from grove.errors import GroveError

    scheduler = CronScheduler(load())
    try:
        result = scheduler.run_now(job)
    except GroveError as e:
        fail(str(e), code=2)
    finally:
        scheduler.close()
    if result is None:
        fail(f"cron job '{job}' is running elsewhere right now; try again when it is done")
    _print_result(result, as_json)
    if result.status != "ok":
        raise SystemExit(1)


@app.command("daemon")
def daemon(
    once: bool = typer.Option(False, "--once", help="Run what is due now, then exit (for a system crontab)."),
    poll: float = typer.Option(30.0, "--poll", min=0.5, help="Seconds between checks for new jobs."),
    as_json: bool = typer.Option(False, "--json", help="One JSON line per finished run."),
) -> None:
    """Run jobs when they are due, until interrupted. A slot missed while no daemon ran runs once at start."""
    from grove.cron.scheduler import CronScheduler

    scheduler = CronScheduler(load(), on_result=lambda r: _print_result(r, as_json))
    try:
        if once:
            scheduler.tick()
            return
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        if not as_json:
            print(f"grove cron daemon: {len(scheduler.jobs.list())} job(s); Ctrl-C stops", flush=True)
        try:
            scheduler.run_forever(stop, poll)
        except KeyboardInterrupt:
            stop.set()
    finally:
        scheduler.close()
