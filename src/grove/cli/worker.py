"""`grove worker --task ID [--fence N]`: work one kanban task as an unattended runtime session (the dispatcher
starts these; by hand it claims the task itself)."""

from __future__ import annotations

import typer

from grove.cli.common import fail, load, split_csv


def worker(
    task: int = typer.Option(..., "--task", help="The task to work."),
    fence: int | None = typer.Option(
        None, "--fence", help="The lease's fencing token (given by the dispatcher)."
    ),
    db: str | None = typer.Option(
        None, "--db", help="Board location (default $GROVE_KANBAN_DB, else state.db)."
    ),
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec."),
    toolsets: str | None = typer.Option(
        None, "--toolsets", "-t", help="Comma-separated toolsets (kanban is added)."
    ),
    host: str | None = typer.Option(None, "--host", help="This host's id on a shared board."),
    lease: float = typer.Option(300.0, "--lease", min=1.0, help="Lease seconds (heartbeat every third)."),
    no_review: bool = typer.Option(False, "--no-review", help="No self-review after the task."),
) -> None:
    """Work one kanban task."""
    from grove.kanban.open import board_location, open_board
    from grove.kanban.worker import run_worker

    settings = load()
    board = open_board(board_location(db, settings.home))
    result = run_worker(
        settings,
        board,
        task,
        fence=fence,
        model=model,
        host=host,
        lease_s=lease,
        toolsets=split_csv(toolsets),
        review="off" if no_review else "thread",
        interrupt_on_loss=True,
    )
    if result.outcome == "none":
        fail(f"{result.detail}: see `grove kanban show {task}`", 1)
    print(f"task #{result.task_id}: {result.outcome}{': ' + result.detail if result.detail else ''}")
    if result.outcome in ("failed", "lost"):
        raise typer.Exit(1)
