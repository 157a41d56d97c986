"""`grove memory show | edit | clear [--user|--agent]`: look at and change MEMORY.md / USER.md by hand."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load

if TYPE_CHECKING:
    from grove.memory.files import MemoryFiles

app = typer.Typer(
    help="Show, edit or clear the agent's memory (MEMORY.md, USER.md).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _targets(user: bool, agent: bool) -> list[str]:
    if user and agent:
        fail("give --user or --agent, not both (neither means both files)", code=2)
    return ["user"] if user else ["memory"] if agent else ["memory", "user"]


def _files() -> MemoryFiles:
    from grove.config.memory import memory_config
    from grove.memory.files import MemoryFiles

    settings = load()
    return MemoryFiles(settings.home, memory_config(settings))


@app.command("show")
def show(
    user: bool = typer.Option(False, "--user", help="Only USER.md (what grove knows about you)."),
    agent: bool = typer.Option(False, "--agent", help="Only MEMORY.md (the agent's notes)."),
) -> None:
    """Print the memory files with their fill levels."""
    files = _files()
    for target in _targets(user, agent):
        entries = files.entries(target)
        print(f"# {files.fill(target).header()}  ({files.path(target)})")
        print("\n§\n".join(entries) if entries else "(empty)")
        archived = files.archived(target)
        if archived:  # what a full file moved out: kept, and the agent's memory(query=...) searches it
            print(f"({len(archived)} older entries archived in {files.archive_path(target)})")
        print()


@app.command("edit")
def edit(
    user: bool = typer.Option(False, "--user", help="Edit USER.md."),
    agent: bool = typer.Option(False, "--agent", help="Edit MEMORY.md (the default)."),
) -> None:
    """Open a memory file in $EDITOR (entries are separated by a line holding only §)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor and not (sys.stdin.isatty() and sys.stdout.isatty()):  # vi with no terminal waits forever
        fail(
            "memory edit needs a terminal for vi; run it in one, or set EDITOR to an editor that needs none",
            2,
        )
    files = _files()
    target = _targets(user, agent)[0]
    path = files.path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(exist_ok=True)
    editor = editor or "vi"
    code = subprocess.call([*shlex.split(editor), str(path)])
    if code != 0:
        fail(f"{editor} exited with {code}")
    fill = files.fill(target)
    print(fill.header())
    if fill.used > fill.limit:
        print(
            f"warning: over the limit; the agent can only remove or shorten entries until it is below {fill.limit}"
        )


@app.command("clear")
def clear(
    user: bool = typer.Option(False, "--user", help="Clear only USER.md."),
    agent: bool = typer.Option(False, "--agent", help="Clear only MEMORY.md."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
) -> None:
    """Empty memory files (the old text is kept next to them as *.md.bak)."""
    files = _files()
    targets = _targets(user, agent)
    names = " and ".join(files.path(t).name for t in targets)
    if not yes and not typer.confirm(f"Clear {names}?"):
        raise typer.Exit(1)
    for t in targets:
        n = files.clear(t)
        print(f"cleared {files.path(t).name} ({n} entries; backup: {files.path(t).name}.bak)")
