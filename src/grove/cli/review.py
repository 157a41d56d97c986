"""`grove review SESSION_ID [--dry-run]`: run the self-review of one session by hand and show what it changes."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from grove.cli.common import fail, load


def review(
    session_id: str = typer.Argument(..., help="The session to review (an id, a unique prefix, or 'last')."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Show what the reviewer would change; write nothing."
    ),
    memory: bool = typer.Option(False, "--memory", help="Run the memory review instead of the skill review."),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Reviewer model spec (default: the session's)."
    ),
    workspace: Path | None = typer.Option(
        None, "--workspace", "-w", help="Folder read_file resolves against."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Review a finished session: patch or create skills (and memory) from what it taught.

    Example: grove review last --dry-run
    """
    from grove.agent.events import AgentEvents
    from grove.config.learning import learning_config
    from grove.runtime.assemble import build_router, open_store
    from grove.runtime.review import review_session
    from grove.store.sessions import SessionNotFound

    settings = load()
    store = open_store(settings)
    try:
        sid = store.resolve_id(session_id)
        info = store.get_session(sid)
    except SessionNotFound as e:
        fail(str(e), code=2)
    if info.source == "review":
        fail(f"session {sid} is itself a review; review the session it came from ({info.parent_id})", code=2)
    spec = model or learning_config(settings).review_model or info.model
    reviewer = build_router(settings, spec, AgentEvents())
    report = review_session(
        settings,
        reviewer,
        sid,
        kind="memory" if memory else "skill",
        dry_run=dry_run,
        workspace=workspace,
        store=store,
    )
    if as_json:
        print(json.dumps(report.__dict__, ensure_ascii=False, default=str))
    else:
        print(report.render())
    if report.error:
        raise typer.Exit(1)
