"""A child's own workspace: an empty folder outside the parent's, kept after the run so the parent can read what
the child wrote there (its path is in the report)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from grove.sandbox.users import SANDBOX_GID


def own_workspace() -> Path:
    path = Path(tempfile.mkdtemp(prefix="grove-child-"))
    if os.geteuid() == 0:
        # as root the file tools act as the sandbox group (grove.security.fs_identity), which must write here
        os.chown(path, -1, SANDBOX_GID)
        path.chmod(0o2770)
    return path.resolve()
