"""`grove import hermes | claude | codex | openclaw [PATH]`: move in from another agent (a dry run unless --apply)."""

from __future__ import annotations

from pathlib import Path

import typer

from grove.cli.common import fail, load


def import_(
    agent: str = typer.Argument(..., help="Where you move in from: hermes, claude, codex or openclaw."),
    path: Path | None = typer.Argument(
        None,
        help="That agent's home (default: ~/.hermes, your home folder for Claude Code, ~/.codex, ~/.openclaw).",
    ),
    apply: bool = typer.Option(
        False,
        "--apply",
        help="Write into GROVE_HOME. Without it, nothing is written: a dry run shows the plan.",
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Replace grove skills and MCP servers of the same name (replaced skills kept in history).",
    ),
    allow_flagged: bool = typer.Option(
        False,
        "--allow-flagged",
        help="Also take skills the scan flags as caution; dangerous ones never come in.",
    ),
    sessions: bool = typer.Option(
        True, "--sessions/--no-sessions", help="Also bring past sessions into state.db."
    ),
    report: Path | None = typer.Option(None, "--report", help="Also write the report as JSON to this file."),
) -> None:
    """Bring another agent's skills, memory, MCP servers and past sessions into grove, with a report of what was
    taken, converted and skipped. Skills go through the same scan as `grove skills import`. Nothing existing is
    overwritten without --force."""
    from grove.atomic_files import atomic_write_text
    from grove.moving_in.layouts import AGENTS, LayoutError
    from grove.moving_in.move import move_in

    if agent not in AGENTS:
        fail(f"unknown agent '{agent}'; use one of: {', '.join(AGENTS)}", code=2)
    settings = load()
    try:
        result = move_in(
            settings, agent, path, apply=apply, force=force, sessions=sessions, allow_flagged=allow_flagged
        )
    except LayoutError as e:
        fail(str(e), code=2)
    print(result.text())
    if report is not None:
        atomic_write_text(report, result.as_json() + "\n")
        print(f"report written to {report}")
