"""`grove checkpoints` and `grove undo [N]`: list the workspace's checkpoints and take turns' changes back."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load

if TYPE_CHECKING:
    from grove.checkpoints.store import CheckpointStore

WORKSPACE_HELP = "The workspace (default: the current folder)."
BACKEND_HELP = (
    "Whose workspace: ssh:HOST[:/path], a backends.named name (default: backends.use; local = here)."
)


def open_store(workspace: Path | None, backend: str | None = None) -> CheckpointStore:
    from grove.backends.base import BackendError
    from grove.backends.spec import parse_spec
    from grove.checkpoints.store import CheckpointStore, backend_tree

    settings = load()
    try:
        spec = parse_spec(backend or settings.backends.use, settings.backends.named)
    except BackendError as e:
        fail(str(e), 2)
    if spec.kind == "ssh":  # the remote workspace, reached through the backend on first use
        return CheckpointStore(settings.home, backend_tree(spec.text, settings), settings.checkpoints)
    where = (workspace or Path.cwd()).resolve()
    if not where.is_dir():
        fail(f"no such workspace folder: {where}; pass an existing one with --workspace PATH", 2)
    return CheckpointStore(settings.home, where, settings.checkpoints)


def checkpoints(
    workspace: Path | None = typer.Option(None, "--workspace", "-w", help=WORKSPACE_HELP),
    limit: int = typer.Option(20, "--limit", "-n", min=1, help="Show this many, newest first."),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
) -> None:
    """List the checkpoints of this workspace (one before each turn that changed it), newest first."""
    store = open_store(workspace, backend)
    rows = list(reversed(store.list()))[:limit]
    if not rows:
        print(f"no checkpoints for {store.where} (one is taken before a turn's first change)")
        return
    print(
        f"checkpoints of {store.where} (`grove undo` takes back the newest turn; --to ID goes back further)"
    )
    print(f"{'id':<13} {'when':<16} {'session':<22} {'files':>5}  {'kind':<5} prompt")
    for cp in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(cp.time))
        files = str(len(cp.changed)) if cp.after else "open"
        print(f"{cp.id:<13} {when:<16} {cp.session[:22]:<22} {files:>5}  {cp.kind:<5} {cp.prompt[:60]}")


def undo(
    count: int = typer.Argument(1, min=1, help="How many of the last turns to take back."),
    to: str | None = typer.Option(None, "--to", help="Restore the tree as it was at this checkpoint id."),
    force: bool = typer.Option(
        False, "--force", help="Undo even over changes made since by someone else (kept as a checkpoint)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; change nothing."),
    workspace: Path | None = typer.Option(None, "--workspace", "-w", help=WORKSPACE_HELP),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
) -> None:
    """Take back what the agent's last turn(s) changed in the workspace, byte for byte (modes included)."""
    from grove.backends.base import BackendError
    from grove.checkpoints.restore import UndoError, last_turns, plan_undo
    from grove.checkpoints.restore import undo as run_undo

    store = open_store(workspace, backend)
    try:
        undone = last_turns(store, count, to)
        plan = plan_undo(store, undone) if dry_run else run_undo(store, undone, force=force)
    except (UndoError, BackendError) as e:
        fail(str(e), 1)
    for rel in plan.paths[:50]:
        verb = "remove" if rel not in plan.target else "create" if rel not in plan.current else "restore"
        print(f"  {verb:<8}{rel}")
    if len(plan.paths) > 50:
        print(f"  ... and {len(plan.paths) - 50} more")
    for rel in plan.skipped:
        print(f"  skipped {rel} (too big to have been kept)")
    if dry_run:
        if plan.conflicts:
            print(
                "changed since by someone else (undo refuses without --force): " + ", ".join(plan.conflicts)
            )
        print(f"dry run: {len(plan.paths)} path(s) would change; nothing changed")
        return
    turns = ", ".join(cp.id for cp in plan.undone)
    print(f"undone {len(plan.undone)} checkpoint(s) ({turns}): {len(plan.paths)} path(s) restored")
    if plan.saved is not None:
        print(f"the tree before this undo is checkpoint {plan.saved.id} (`grove undo` brings it back)")


def chat_command(
    cmd: str, arg: str, workspace: Path, say: Callable[[str], None], store: CheckpointStore | None = None
) -> None:
    """`/undo [N] [--force]` and `/rollback [ID] [--force]` inside `grove chat` (no ID: list the checkpoints);
    `store`: the session's own (of its backend's workspace)."""
    from grove.checkpoints.restore import UndoError, last_turns
    from grove.checkpoints.restore import undo as run_undo

    words = arg.split()
    force = "--force" in words
    words = [w for w in words if w != "--force"]
    store = store or open_store(workspace)
    if cmd == "/rollback" and not words:
        rows = list(reversed(store.list()))[:10]
        for cp in rows:
            when = time.strftime("%m-%d %H:%M", time.localtime(cp.time))
            say(f"{cp.id}  {when}  {len(cp.changed):>4} files  {cp.kind:<5} {cp.prompt[:60]}")
        say("/rollback ID restores the tree as it was before that turn" if rows else "no checkpoints yet")
        return
    try:
        if cmd == "/rollback":
            undone = last_turns(store, to=words[0])
        else:
            if words and not words[0].isdigit():
                raise UndoError("usage: /undo [N] [--force] — N is how many of the last turns to take back")
            undone = last_turns(store, int(words[0]) if words else 1)
        plan = run_undo(store, undone, force=force)
    except UndoError as e:
        say(f"undo refused: {e}".replace("run again with --force", "add --force"))
        return
    say(f"undone {len(plan.undone)} checkpoint(s): {len(plan.paths)} path(s) restored")
    if plan.saved is not None:
        say(f"the replaced state is checkpoint {plan.saved.id} (/undo brings it back)")
