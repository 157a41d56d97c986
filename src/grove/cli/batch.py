"""`grove batch DATASET.jsonl [...]`, `grove batch status DATASET`, `grove batch export DATASET --sharegpt F
--openai F`: many tasks as cards on the kanban board, worked in parallel, labelled by their verifiers; the
workers' trajectories exported for training (see grove.batch)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from typer.core import TyperGroup

from grove.cli.common import fail, load
from grove.cli.errors import USAGE

if TYPE_CHECKING:
    from grove.batch.dataset import Item
    from grove.batch.run import Progress
    from grove.kanban.dispatcher import TickReport


class _DefaultRun(TyperGroup):
    """`grove batch DATASET ...` means `grove batch run DATASET ...`."""

    # typer's base takes the Context of its vendored (private) click; what it passes is this subclass of it
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # pyright: ignore[reportIncompatibleMethodOverride]
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_DefaultRun,
    help="Run a JSONL dataset of tasks on the kanban board, label each by its verifier, export trajectories.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

DATASET = typer.Argument(..., help="JSONL: one {id, prompt, verifier?, files?} a line.")
NAME = typer.Option(None, "--name", help="The batch's name on the board (default: the dataset's file name).")
DB = typer.Option(
    None,
    "--db",
    help="Board location: postgresql://... or a SQLite file (default $GROVE_KANBAN_DB, else state.db).",
)


def _name(dataset: Path, name: str | None) -> str:
    chosen = name or dataset.stem
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,100}", chosen):
        fail(f"batch name {chosen!r}: use letters, digits, '.', '_' or '-' (say --name)", USAGE)
    return chosen


def _items(dataset: Path) -> list[Item]:
    from grove.batch.dataset import load_dataset
    from grove.errors import GroveError

    try:
        return load_dataset(dataset)
    except GroveError as e:
        fail(str(e), USAGE)


@app.command("run")
def run(
    dataset: Path = DATASET,
    name: str | None = NAME,
    db: str | None = DB,
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec for the workers."),
    toolsets: str | None = typer.Option(
        None, "--toolsets", "-t", help="Comma-separated toolsets for the workers (kanban is added)."
    ),
    jobs: int = typer.Option(4, "--jobs", "-j", min=1, help="Workers at once on this host."),
    lease: float = typer.Option(
        300.0, "--lease", min=1.0, help="Lease seconds (workers heartbeat at a third)."
    ),
    max_retries: int = typer.Option(1, "--max-retries", min=0, help="Failed attempts retried per card."),
    review: bool = typer.Option(False, "--review", help="Let workers self-review (learn) after their task."),
    workspaces: Path | None = typer.Option(
        None,
        "--workspaces",
        help="Where each card's folder goes (default $GROVE_KANBAN_WORKSPACES/batch-NAME).",
    ),
    host: str | None = typer.Option(
        None, "--host", envvar="GROVE_HOST_ID", help="This host's id on a shared board."
    ),
    tick: float = typer.Option(2.0, "--tick", min=0.1, help="Seconds between dispatcher ticks at most."),
    as_json: bool = typer.Option(False, "--json", help="Print the final counts as JSON."),
) -> None:
    """Run every task of the dataset (a rerun resumes: nothing is added or worked twice)."""
    import os
    import socket

    from grove.batch.run import BatchConfig, run_batch
    from grove.config.learning import learning_config
    from grove.kanban.open import board_location, open_board
    from grove.kanban.worker import WORKSPACES_ENV

    items = _items(dataset)
    batch = _name(dataset, name)
    settings = load()
    location = board_location(db, settings.home)
    from grove.config.workspaces import entrance_root

    root = (
        workspaces
        or entrance_root(settings.home, "kanban", os.environ.get(WORKSPACES_ENV)) / f"batch-{batch}"
    )
    config = BatchConfig(
        name=batch,
        location=location,
        workspaces=root.absolute(),
        model=model,
        jobs=jobs,
        lease_s=lease,
        max_retries=max_retries,
        review=review,
        host=host or socket.gethostname(),
        tick_s=tick,
        toolsets=toolsets,
        log_dir=settings.home / "logs" / "batch" / batch,
        failure_home=settings.home if review and learning_config(settings).review else None,
    )

    def show(_report: TickReport, progress: Progress) -> None:
        for item_id, label in progress.newly:
            print(f"{item_id}: {'passed' if label.passed else 'failed'} ({label.detail})", flush=True)

    import sys

    def warn(line: str) -> None:
        print(f"grove: {line}", file=sys.stderr)

    progress = run_batch(open_board(location), items, config, on_tick=None if as_json else show, warn=warn)
    if as_json:
        print(
            json.dumps(
                {
                    "batch": batch,
                    "total": progress.total,
                    "passed": progress.passed,
                    "failed": progress.labelled - progress.passed,
                    "added": progress.added,
                }
            )
        )
    else:
        print(f"batch {batch}: {progress.line()}")


@app.command("status")
def status(dataset: Path = DATASET, name: str | None = NAME, db: str | None = DB) -> None:
    """Each task's card, status and label."""
    from grove.batch import cards
    from grove.kanban.open import board_location, open_board

    items = _items(dataset)
    batch = _name(dataset, name)
    board = open_board(board_location(db, load().home))
    have = cards.find(board, batch, items)
    for item in items:
        task = have.get(item.id)
        if task is None:
            print(f"{item.id}: not on the board")
            continue
        label = cards.label_of(board, task.id)
        verdict = "" if label is None else f" {'passed' if label.passed else 'failed'}: {label.detail}"
        print(f"{item.id}: #{task.id} [{task.status}]{verdict}")


@app.command("export")
def export(
    dataset: Path = DATASET,
    name: str | None = NAME,
    db: str | None = DB,
    sharegpt: Path | None = typer.Option(None, "--sharegpt", help="Write ShareGPT-style JSONL here."),
    openai: Path | None = typer.Option(None, "--openai", help="Write OpenAI fine-tuning chat JSONL here."),
    only: str = typer.Option("all", "--only", help="all, passed or failed (by the verifier's label)."),
) -> None:
    """Write the labelled cards' trajectories (secrets redacted)."""
    from grove.batch.export import export as write
    from grove.kanban.open import board_location, open_board

    if sharegpt is None and openai is None:
        fail("say where: --sharegpt FILE and/or --openai FILE", USAGE)
    if only not in ("all", "passed", "failed"):
        fail(f"--only is all, passed or failed, not {only!r}", USAGE)
    items = _items(dataset)
    batch = _name(dataset, name)
    board = open_board(board_location(db, load().home))
    report = write(board, batch, items, sharegpt=sharegpt, openai=openai, only=only)
    print(
        f"exported {report.written} trajectories"
        + "".join(
            f", {n} {what}"
            for what, n in (
                ("not labelled yet", report.unlabelled),
                ("without a trajectory here", report.missing),
                (f"left out by --only {only}", report.skipped),
            )
            if n
        )
    )
