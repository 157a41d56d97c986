"""What persists beyond the workspace though it lives inside it: the one list every guard reads (sandbox binds,
file tools, the after-command check), so a path is protected by where it is, never by how a command spells it."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

# Paths relative to the workspace whose contents some program runs later (git runs hooks and config commands on
# the user's next `git status`; direnv runs .envrc on `cd`). Glob patterns over '/'-joined relative paths; a
# pattern matches the path itself and everything beneath it.
WORKSPACE_PROTECTED = (
    ".git/config",
    ".git/config.worktree",
    ".git/hooks",
    ".git/info",
    ".git/modules/*/config",
    ".git/modules/*/hooks",
    ".git/worktrees/*/config.worktree",
    ".gitmodules",
    ".envrc",
    ".direnv",
    ".vscode/tasks.json",
    ".vscode/settings.json",
)


def protected_rel(rel: str) -> str | None:
    """The protected pattern a workspace-relative path falls under (itself or beneath), else None."""
    rel = rel.strip("/")
    if not rel or rel == ".":
        return None
    parts = rel.split("/")
    for pattern in WORKSPACE_PROTECTED:
        depth = pattern.count("/") + 1
        if len(parts) >= depth and fnmatch.fnmatchcase("/".join(parts[:depth]), pattern):
            return pattern
    return None


def home_inside(workspace: Path, home: Path | None) -> str | None:
    """grove's home relative to the workspace when it lies inside it (grove started in $HOME), else None."""
    if home is None:
        return None
    ws, h = os.path.realpath(workspace), os.path.realpath(home)
    if h == ws:
        return "."
    if h.startswith(ws.rstrip("/") + "/"):
        return h[len(ws.rstrip("/")) + 1 :]
    return None


def existing_protected(workspace: Path, home: Path | None = None) -> list[str]:
    """Workspace-relative protected paths that exist now (for read-only binds and snapshots), home included."""
    found: list[str] = []
    ws = Path(workspace)
    for pattern in WORKSPACE_PROTECTED:
        for p in sorted(ws.glob(pattern)):
            if os.path.lexists(p):
                found.append(p.relative_to(ws).as_posix())
    inside = home_inside(workspace, home)
    if inside is not None and inside != ".":
        found.append(inside)
    return found
