"""`grove acp`: grove as an Agent Client Protocol agent on stdio, for editors such as Zed."""

from __future__ import annotations

import typer

from grove.cli.common import fail, load, split_csv


def acp(
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec (default: settings)."),
    toolsets: str | None = typer.Option(None, "--toolsets", "-t", help="Comma-separated toolsets."),
    allow_terminal: bool = typer.Option(
        False, "--allow-terminal", help="Let the model run shell commands (each risky one asks the editor)."
    ),
) -> None:
    """Speak ACP on stdin/stdout; the editor starts this. Example: grove acp --allow-terminal"""
    try:
        from grove.acp.server import serve_stdio
    except ImportError:
        fail("grove acp needs the ACP SDK: pip install 'grove-agent[acp]'", 2)
    from grove.acp.agent import Options

    serve_stdio(load(), Options(model=model, toolsets=split_csv(toolsets), allow_terminal=allow_terminal))
