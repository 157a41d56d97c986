"""Each gateway user's own grove home: memory files, sessions (state.db), skills and checkpoints apart from
everyone else's. Owners use the grove's own home (they are the person at the CLI); others get
GROVE_HOME/gateway/users/<platform>/<account>, where the downloaded local models and the spend ledger are the
grove's own, by a link (a cap on all spend must count every user's requests)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from grove.gateway.workspace import safe_name

if TYPE_CHECKING:
    from grove.config import Settings

SHARED_DIRS = ("models",)  # big, read-only downloads; nothing a user says goes there
SHARED_FILES = ("spend.db",)  # SQLite follows the link: its -wal and -shm files sit next to the real one


def account_dir(platform: str, user_id: str) -> str:
    """A folder name for an account id: readable, and distinct for ids that clean to the same text."""
    digest = hashlib.sha256(f"{platform}\0{user_id}".encode()).hexdigest()[:12]
    return f"{safe_name(user_id)[:60]}-{digest}"


def users_root(home: Path) -> Path:
    """Where the homes of a grove's gateway users are: <root>/<platform>/<account_dir>."""
    return home / "gateway" / "users"


def user_home(settings: Settings, platform: str, user_id: str, owner: bool) -> Path:
    if owner:
        return settings.home
    home = users_root(settings.home) / safe_name(platform) / account_dir(platform, user_id)
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name in SHARED_DIRS:
        source, link = settings.home / name, home / name
        if source.is_dir() and not os.path.lexists(link):
            link.symlink_to(source, target_is_directory=True)
    for name in SHARED_FILES:
        link = home / name
        if not os.path.lexists(link):
            link.symlink_to(settings.home / name)
    return home


def user_settings(settings: Settings, platform: str, user_id: str, owner: bool) -> Settings:
    """The settings a user's sessions run with: the grove's config, that user's home."""
    home = user_home(settings, platform, user_id, owner)
    return settings if home == settings.home else dataclasses.replace(settings, home=home)
