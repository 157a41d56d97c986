"""Where the unattended entrances keep the workspaces they make (a chat's, an API key's, a cron job's, a kanban
task's): under grove's home, in `workspaces/<entrance>/`, unless the user names another folder. Each is a workspace
of its own to the file tools; grove's other files in its home stay out of reach (grove.security.files.confine)."""

from __future__ import annotations

import os
from pathlib import Path

FOLDER = "workspaces"  # the one folder of grove's home that file tools may act in (as in any other workspace)


def entrance_root(home: Path, entrance: str, override: str | Path | None = None) -> Path:
    """`override` (a setting, a flag, an environment variable) if given, else $GROVE_HOME/workspaces/<entrance>."""
    if override:
        return Path(os.path.expanduser(str(override)))
    return Path(os.path.expanduser(str(home))) / FOLDER / entrance
