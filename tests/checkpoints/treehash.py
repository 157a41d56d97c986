"""A tree's fingerprint for the undo tests: every path with its kind, permission bits and bytes (a link's target)."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def tree(root: Path, skip: tuple[str, ...] = ()) -> dict[str, tuple[str, int, str]]:
    out: dict[str, tuple[str, int, str]] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            if rel.split(os.sep)[0] in skip:
                continue
            st = os.lstat(full)
            mode = stat.S_IMODE(st.st_mode) & 0o777
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", 0, os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", mode, "")
            else:
                out[rel] = ("file", mode, hashlib.sha256(Path(full).read_bytes()).hexdigest())
    return out
