"""`grove curator run [--dry-run] | status`: curate the skill library by hand, or see when it runs next."""

from __future__ import annotations

import json

import typer

from grove.cli.common import load

app = typer.Typer(
    help="Curate the skill library: stale, archive, merge overlapping skills.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@app.command("run")
def run(
    dry_run: bool = typer.Option(False, "--dry-run", help="Show every change it would make; change nothing."),
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        help="Model that proposes merges (default: learning.curator_model, else review_model, else the configured one).",
    ),
    no_model: bool = typer.Option(
        False, "--no-model", help="No model: only stale/archive and overlap report."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Run the curator now. Only agent-created skills are touched; archived ones come back with
    `grove skills restore NAME`."""
    from dataclasses import asdict

    from grove.learning.curator import run_curator

    settings = load()
    reviewer = None
    if not no_model:
        from grove.agent.events import AgentEvents
        from grove.learning.curator import curator_model_spec
        from grove.runtime.assemble import build_router

        spec = model or curator_model_spec(settings, settings.resolved_model()) or settings.resolved_model()
        reviewer = build_router(settings, spec, AgentEvents())
    from grove.runtime.review_probes import probes_for

    report = run_curator(settings, dry_run=dry_run, model=reviewer, probes=probes_for(settings))
    print(json.dumps(asdict(report), ensure_ascii=False) if as_json else report.render())
    if report.error:
        raise typer.Exit(1)


@app.command("status")
def status() -> None:
    """When the curator last ran, whether it is due, and which skills are stale."""
    from grove.learning.curator import curator_due, weak_skills
    from grove.learning.runs import runs
    from grove.skills.stale import read_stale
    from grove.store.db import Database

    settings = load()
    db = Database(settings.db_path)
    try:
        due, why = curator_due(settings, db)
        last = runs(db, kind="curator", limit=1)
        weak = weak_skills(settings, db)
    finally:
        db.close()
    print(f"due: {'yes' if due else 'no'} ({why})")
    if last:
        r = last[0]
        print(f"last run: {r.status}{' (dry run)' if r.dry_run else ''}, {len(r.changes)} change(s)")
    stale = sorted(read_stale(settings.home))
    print(f"stale (hidden from the index): {', '.join(stale) if stale else 'none'}")
    shown = [f"{a.skills[0]} ({a.detail.split(';')[0]})" for a in weak]
    print(f"weak (proposed for a patch): {', '.join(shown) if shown else 'none'}")
