"""Each chat's workspace folder: files sent in land in `inbox/`, and files a turn writes are sent back."""

from __future__ import annotations

import os
import re
from pathlib import Path

INBOX = "inbox"
MAX_IN_BYTES = 20 * 1024 * 1024  # a bigger attachment is refused with a message
MAX_OUT_BYTES = 20 * 1024 * 1024
MAX_SCAN = 5000  # files looked at per turn to find what changed


def chat_folder(home: Path, root: str | None, platform: str, chat_id: str, entrance: str = "gateway") -> Path:
    """A chat's workspace under `root`, by default $GROVE_HOME/workspaces/<entrance> (grove.config.workspaces)."""
    from grove.config.workspaces import entrance_root
    from grove.sandbox.users import sandbox_folder

    base = entrance_root(home, entrance, root)
    return sandbox_folder(base / platform / safe_name(chat_id))  # file tools act as the sandbox group as root


def safe_name(name: str) -> str:
    """A file or folder name from a platform's text: no path separators, no leading dots, not empty."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).lstrip(".")[:120]
    return cleaned or "file"


def save_inbound(folder: Path, name: str, data: bytes) -> Path:
    inbox = folder / INBOX
    inbox.mkdir(exist_ok=True)
    target = inbox / safe_name(name)
    stem, suffix, n = target.stem, target.suffix, 1
    while target.exists():
        n += 1
        target = inbox / f"{stem}-{n}{suffix}"
    target.write_bytes(data)
    if os.geteuid() == 0:
        target.chmod(0o664)
    return target


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """relative path -> (mtime ns, size) of the workspace's regular files (inbox and dot folders left out)."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [
            d for d in dirnames if not d.startswith(".") and not (dirpath == str(folder) and d == INBOX)
        ]
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if os.path.isfile(path) and not os.path.islink(path):
                out[os.path.relpath(path, folder)] = (st.st_mtime_ns, st.st_size)
            if len(out) >= MAX_SCAN:
                return out
    return out


def changed(folder: Path, before: dict[str, tuple[int, int]], limit: int) -> list[Path]:
    """Files written since `before` (new or changed), oldest first, at most `limit`, none over the size cap."""
    after = snapshot(folder)
    fresh = [
        (stamp, rel) for rel, stamp in after.items() if before.get(rel) != stamp and stamp[1] <= MAX_OUT_BYTES
    ]
    return [folder / rel for _, rel in sorted(fresh)[:limit]]


def user_chat_folder(home: Path, root: str | None, platform: str, account: str, chat_id: str) -> Path:
    """A non-owner's workspace for one chat: under `users/`, apart from the owners' chat folders and each other."""
    from grove.config.workspaces import entrance_root
    from grove.sandbox.users import sandbox_folder

    base = entrance_root(home, "gateway", root)
    return sandbox_folder(base / "users" / safe_name(platform) / account / safe_name(chat_id))
