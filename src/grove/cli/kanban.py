"""`grove kanban add | list | show | board | dispatch | retry | archive | stats`: the task board from the terminal
(`--db postgresql://...` or $GROVE_KANBAN_DB for a shared board; default state.db)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load, split_csv

if TYPE_CHECKING:
    from grove.kanban.leases import Leases
    from grove.kanban.model import Task

app = typer.Typer(
    help="The kanban board: tasks, a dispatcher and workers.", no_args_is_help=True, rich_markup_mode=None
)
_state: dict[str, str | None] = {"db": None}


@app.callback()
def _options(
    db: str | None = typer.Option(
        None,
        "--db",
        help="Board location: postgresql://... or a SQLite file (default $GROVE_KANBAN_DB, else state.db).",
    ),
) -> None:
    _state["db"] = db


def _location() -> str:
    from grove.kanban.open import board_location

    return board_location(_state["db"], load().home)


def _board() -> Leases:
    from grove.kanban.open import open_board

    return open_board(_location())


def _line(t: Task) -> str:
    deps = f" after {','.join(f'#{p}' for p in t.parents)}" if t.parents else ""
    who = f" @{t.assignee}" if t.assignee else ""
    return f"#{t.id} [{t.status}] p{t.priority}{who} {t.title}{deps}"


@app.command("add")
def add(
    title: str = typer.Argument(..., help="One line saying what to do."),
    body: str = typer.Option("", "--body", "-b", help="Details for the worker."),
    parent: list[int] = typer.Option(
        [], "--parent", "-p", help="A task that must be done first (repeatable)."
    ),
    triage: bool = typer.Option(
        False, "--triage", help="Let the dispatcher split it into subtasks with the model."
    ),
    assignee: str | None = typer.Option(None, "--assignee", "-a", help="The profile that should work it."),
    priority: int = typer.Option(0, "--priority", help="Higher is claimed first."),
    skills: str | None = typer.Option(None, "--skills", help="Comma-separated skills to preload."),
    workspace: str | None = typer.Option(None, "--workspace", help="The worker's folder (default: its own)."),
    key: str | None = typer.Option(
        None, "--key", help="Idempotency key: adding it again returns the first task."
    ),
    max_retries: int = typer.Option(3, "--max-retries", min=0, help="Failed attempts before it is blocked."),
) -> None:
    """Add a task."""
    board = _board()
    task = board.add(
        title,
        body,
        parents=parent,
        triage=triage,
        assignee=assignee,
        priority=priority,
        skills=split_csv(skills) or [],
        workspace=workspace,
        idempotency_key=key,
        max_retries=max_retries,
    )
    print(_line(task))


@app.command("list")
def list_tasks(
    status: str | None = typer.Option(None, "--status", "-s", help="Only tasks with this status."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per task."),
) -> None:
    """List tasks (archived ones only with --status archived)."""
    from dataclasses import asdict

    tasks = _board().tasks(status)
    for t in tasks:
        if status is None and t.status == "archived":
            continue
        print(json.dumps(asdict(t), ensure_ascii=False) if as_json else _line(t))


@app.command("show")
def show(task_id: int = typer.Argument(..., help="The task's id.")) -> None:
    """A task with its runs, comments and events."""
    board = _board()
    t = board.get(task_id)
    print(_line(t))
    if t.body:
        print(t.body)
    if t.result:
        print(f"result: {t.result}")
    if t.error:
        print(f"error: {t.error}")
    if t.status == "running":
        print(
            f"lease {t.fence}: {t.lease_owner} on {t.lease_host} pid {t.lease_pid}, expires {_ago(t.lease_expires)}"
        )
    for r in board.runs(task_id):
        print(
            f"run lease {r.fence} {r.outcome} by {r.worker} on {r.host}: {r.error or r.summary or ''}".rstrip(
                ": "
            )
        )
    for c in board.comments(task_id):
        print(f"comment {c.author}: {c.body}")
    for e in board.events(task_id):
        print(f"event {e.kind} {json.dumps(e.data, ensure_ascii=False) if e.data else ''}".rstrip())


def _ago(at: float | None) -> str:
    if at is None:
        return "-"
    delta = at - time.time()
    return f"in {delta:.0f}s" if delta >= 0 else f"{-delta:.0f}s ago"


@app.command("board")
def board_view(
    watch: bool = typer.Option(False, "--watch", "-w", help="Redraw as the board changes (Ctrl-C to stop)."),
) -> None:
    """The board as a table: one column per status."""
    from rich.console import Console
    from rich.live import Live

    from grove.kanban.view import board_table

    board = _board()
    console = Console()
    if not watch:
        console.print(board_table(board.tasks()))
        return
    with Live(board_table(board.tasks()), console=console, auto_refresh=False) as live:
        while True:
            board.wait(2.0)
            live.update(board_table(board.tasks()), refresh=True)


@app.command("dispatch")
def dispatch(
    once: bool = typer.Option(False, "--once", help="One tick, then exit."),
    loop: bool = typer.Option(False, "--loop", help="Tick until interrupted."),
    tick: float = typer.Option(
        60.0, "--tick", min=0.1, help="Seconds between ticks (a board change wakes it early)."
    ),
    max_in_progress: int = typer.Option(
        4, "--max-in-progress", "-j", min=1, help="Workers at once on this host."
    ),
    per_profile: str | None = typer.Option(
        None, "--per-profile", help="Limits per assignee, e.g. coder=2,writer=1."
    ),
    board_max: int | None = typer.Option(
        None, "--board-max-in-progress", min=1, help="Tasks running at once on the whole board (every host)."
    ),
    board_per_profile: str | None = typer.Option(
        None, "--board-per-profile", help="Board-wide limits per assignee (every host), e.g. coder=2."
    ),
    lease: float = typer.Option(
        300.0, "--lease", min=1.0, help="Lease seconds (workers heartbeat at a third)."
    ),
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec for workers and decomposition."),
    host: str | None = typer.Option(
        None, "--host", envvar="GROVE_HOST_ID", help="This host's id on a shared board (default: hostname)."
    ),
    no_decompose: bool = typer.Option(False, "--no-decompose", help="Leave triage tasks alone."),
    no_review: bool = typer.Option(
        False, "--no-review", help="Workers skip the self-review after their task."
    ),
) -> None:
    """Run the dispatcher: reclaim, decompose, promote, and start workers."""
    import socket

    from grove.kanban.dispatcher import DispatchConfig, Dispatcher

    if once == loop:
        fail("say --once or --loop", 2)
    settings = load()
    limits = _profile_limits("--per-profile", per_profile)
    board_limits = _profile_limits("--board-per-profile", board_per_profile)
    config = DispatchConfig(
        location=_location(),
        host=host or socket.gethostname(),
        max_in_progress=max_in_progress,
        per_profile=limits,
        board_max_in_progress=board_max,
        board_per_profile=board_limits,
        lease_s=lease,
        model=model,
        log_dir=settings.home / "logs" / "kanban",
        worker_args=["--no-review"] if no_review else [],
    )
    decomposer: Callable[[Task], list[tuple[str, str]]] | None = None
    if not no_decompose:
        from grove.kanban.decompose import propose_subtasks

        def decompose(task: Task) -> list[tuple[str, str]]:
            from grove.agent.events import AgentEvents
            from grove.runtime.assemble import build_router

            return propose_subtasks(
                build_router(settings, model or settings.resolved_model(), AgentEvents()), task
            )

        decomposer = decompose

    dispatcher = Dispatcher(_board(), config, decomposer=decomposer)
    if once:
        print(dispatcher.tick().line())
        return
    dispatcher.loop(tick, on_tick=lambda r: print(r.line(), flush=True))


def _profile_limits(option: str, value: str | None) -> dict[str, int]:
    limits: dict[str, int] = {}
    for item in split_csv(value) or []:
        name, _, n = item.partition("=")
        if not name or not n.isdigit():
            fail(f"{option} wants name=N pairs, got {item!r}", 2)
        limits[name] = int(n)
    return limits


@app.command("backend")
def backend(
    spec: str | None = typer.Argument(
        None, help="ssh:HOST[:/path], podman:IMAGE, a backends.named name, local."
    ),
    clear: bool = typer.Option(False, "--clear", help="Forget it: workers use their own backends.use."),
) -> None:
    """Show or set where this board's workers run their tools, on every host that works the board."""
    from grove.backends.base import BackendError
    from grove.backends.spec import parse_spec

    if spec is not None:
        try:
            parse_spec(spec, load().backends.named)
        except BackendError as e:
            fail(str(e), 2)
    board = _board()
    if spec is not None or clear:
        board.set_setting("backend", None if clear else spec)
    print(board.setting("backend") or "unset: each worker uses its own backends.use")


@app.command("retry")
def retry(task_id: int = typer.Argument(..., help="A blocked, review or done task.")) -> None:
    """Put a task back in line with its failure count reset."""
    print(_line(_board().retry(task_id)))


@app.command("archive")
def archive(task_id: int = typer.Argument(..., help="The task's id.")) -> None:
    """Archive a task (it stays in the log; `retry` brings it back)."""
    print(_line(_board().archive(task_id)))


@app.command("stats")
def stats(
    window: float = typer.Option(3600.0, "--window", min=1.0, help="Seconds of history for the throughput."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Counts by status, throughput, mean wait and run time, reclaims."""
    s = _board().stats(window)
    if as_json:
        print(json.dumps(s))
        return
    print("  ".join(f"{k} {v}" for k, v in s["counts"].items() if v) or "no tasks")
    secs = {k: "-" if s[k] is None else f"{s[k]}s" for k in ("mean_wait_s", "mean_run_s")}
    print(
        f"done/min {s['done_per_min']}  mean wait {secs['mean_wait_s']}  mean run {secs['mean_run_s']}  "
        f"runs {s['runs']}  failed {s['failed_runs']}  reclaims {s['reclaims']}"
    )
