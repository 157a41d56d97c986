"""A git configuration for sandboxed runs: repositories of another uid are trusted, and commits have an author.

Sandboxed commands often run as a uid that does not own the repository (as root, a fresh uid per run), which
git refuses ("dubious ownership") unless `safe.directory` says otherwise in a protected (global) config; and
the user's ~/.gitconfig is not visible inside. The file is given as GIT_CONFIG_GLOBAL, read-only: a repository's
own settings (user.name, ...) still win, and the sandbox cannot change it.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

MOUNT_POINT = "/etc/grove-sandbox.gitconfig"  # where bubblewrap shows it; other backends use the host path
CONTENT = """\
# written by grove for sandboxed commands (GIT_CONFIG_GLOBAL); the repository's own config still wins
[safe]
\tdirectory = *
[user]
\tname = grove sandbox
\temail = sandbox@grove.invalid
"""


@functools.cache
def gitconfig_path() -> str:
    """A world-readable file only grove's uid can change, written once per process."""
    folder = tempfile.mkdtemp(prefix="grove-git-")
    os.chmod(folder, 0o755)
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "gitconfig"
    path.write_text(CONTENT, encoding="utf-8")
    path.chmod(0o444)
    return str(path)


def git_env(backend: str) -> dict[str, str]:
    return {"GIT_CONFIG_GLOBAL": MOUNT_POINT if backend == "bwrap" else gitconfig_path()}
