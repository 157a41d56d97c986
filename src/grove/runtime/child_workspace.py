"""A child's own workspace: an empty folder outside the parent's, removed when the delegate call ends unless
delegation.keep_workspaces keeps it (its path is in the report)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from grove.sandbox.users import sandbox_folder


def own_workspace() -> Path:
    return sandbox_folder(Path(tempfile.mkdtemp(prefix="grove-child-")), 0o2770).resolve()
