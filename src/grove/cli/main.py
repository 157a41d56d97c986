"""The `grove` app: registers the command groups and turns known errors into clear messages and exit codes."""

from __future__ import annotations

import sys

import typer

from grove import __version__
from grove.cli import chat, config_cmd, curator, doctor, evolve, goal, memory, review, run, sessions, skills

app = typer.Typer(
    name="grove",
    help='grove — the agent that grows with you. Start with `grove run "question"` or `grove chat`.',
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"grove {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version."
    ),
) -> None:
    """grove — the agent that grows with you."""


app.command("run")(run.run)
app.command("chat")(chat.chat)
app.command("doctor")(doctor.doctor)
app.command("goal")(goal.goal)
app.add_typer(sessions.app, name="sessions")
app.add_typer(config_cmd.app, name="config")
app.add_typer(skills.app, name="skills")
app.add_typer(memory.app, name="memory")
app.command("review")(review.review)
app.add_typer(curator.app, name="curator")
app.add_typer(evolve.app, name="evolve")


def main(argv: list[str] | None = None) -> None:
    from grove.errors import GroveError

    try:
        app(args=argv, prog_name="grove")
    except GroveError as e:
        print(f"grove: {e}", file=sys.stderr)
        sys.exit(2)
