"""The `grove` app: registers the command groups and turns known errors into clear messages and exit codes.

Commands are imported on demand: `grove run` loads only what a one-shot answer needs (start-up is a measured figure).
"""

from __future__ import annotations

import importlib
import sys

import typer

from grove import __version__

# name -> (module under grove.cli, attribute, is a sub-app); the order is the order of `grove --help`.
COMMANDS: dict[str, tuple[str, str, bool]] = {
    "run": ("run", "run", False),
    "chat": ("chat", "chat", False),
    "doctor": ("doctor", "doctor", False),
    "goal": ("goal", "goal", False),
    "sessions": ("sessions", "app", True),
    "config": ("config_cmd", "app", True),
    "models": ("models_cmd", "app", True),
    "skills": ("skills", "app", True),
    "memory": ("memory", "app", True),
    "checkpoints": ("checkpoints", "checkpoints", False),
    "undo": ("checkpoints", "undo", False),
    "review": ("review", "review", False),
    "curator": ("curator", "app", True),
    "evolve": ("evolve", "app", True),
    "kanban": ("kanban", "app", True),
    "worker": ("worker", "worker", False),
    "batch": ("batch", "app", True),
    "gateway": ("gateway", "app", True),
    "mcp": ("mcp", "app", True),
    "import": ("import_cmd", "import_", False),
    "plugins": ("plugins", "app", True),
    "cron": ("cron", "app", True),
    "serve": ("serve", "app", True),
    "acp": ("acp_cmd", "acp", False),
    "spend": ("spend", "spend", False),
    "usage": ("spend", "spend", False),
}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"grove {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version."
    ),
) -> None:
    """grove — the agent that grows with you."""


def build_app(names: list[str] | None = None) -> typer.Typer:
    """The app with the named commands registered (all of them when None)."""
    app = typer.Typer(
        name="grove",
        help='grove — the agent that grows with you. Start with `grove run "question"` or `grove chat`.',
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    for name in names or list(COMMANDS):
        module_name, attr, is_group = COMMANDS[name]
        target = getattr(importlib.import_module(f"grove.cli.{module_name}"), attr)
        if is_group:
            app.add_typer(target, name=name)
        else:
            app.command(name)(target)
    return app


def _requested(argv: list[str]) -> list[str] | None:
    """The one command the arguments name, or None (help, --version, a typo) so that all are listed."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return [first] if first in COMMANDS else None


def main(argv: list[str] | None = None) -> None:
    from grove.cli.errors import explain

    args = sys.argv[1:] if argv is None else argv
    try:
        # not standalone: usage errors come here and get the same one-line form as every other error
        code = build_app(_requested(args))(args=args, prog_name="grove", standalone_mode=False)
    except typer.Abort:
        print("grove: aborted (no answer on standard input)", file=sys.stderr)
        sys.exit(1)
    except typer.TyperException as e:  # click's errors, as typer vendors them: usage (2) and the like
        exit_code = int(getattr(e, "exit_code", 2))
        message = e.format_message() if hasattr(e, "format_message") else str(e)
        ctx = getattr(e, "ctx", None)
        if type(e).__name__ == "NoArgsIsHelpError":  # a bare group: its help is the answer
            print(message, file=sys.stderr)
        else:
            where = f" (see `{ctx.command_path} --help`)" if ctx is not None and exit_code == 2 else ""
            print(f"grove: {message}{where}", file=sys.stderr)
        sys.exit(exit_code)
    except (Exception, KeyboardInterrupt) as e:
        known = explain(e)
        if known is None:
            raise  # a bug: the traceback is the report
        message, code = known
        print(f"grove: {message}", file=sys.stderr)
        sys.exit(code)
    if isinstance(code, int) and code:  # typer.Exit(n) from a command
        sys.exit(code)
