"""Each gateway account's sessions, read for the dashboard's admin view: owners' conversations are kept in the
grove's own state.db, everyone else's in their own home (homes.py); each found through its home's
`gateway_chats`, so one account's list never holds another's session."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.gateway.chats import account_of, kept
from grove.gateway.homes import users_root
from grove.gateway.users import UserBook, gateway_db_path
from grove.gateway.workspace import safe_name

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.store.sessions import SessionStore


@dataclass
class Account:
    platform: str
    account: str  # the platform's account id (as its kept conversations name it)
    role: str  # owner, admin, user, blocked (the book, then config); "": neither names it
    folder: str  # its home's folder under gateway/users/<platform>/; "" for an owner (the grove's own home)
    sessions: list[Any] = field(default_factory=list)  # SessionInfo, newest first


def _known(settings: Settings) -> dict[tuple[str, str], tuple[str, str]]:
    """(platform, account id) -> (id, role) for every account in the book or config."""
    found: dict[tuple[str, str], tuple[str, str]] = {}

    def add(platform: str, user_id: str, role: str) -> None:
        found.setdefault((platform, user_id), (user_id, role))

    if gateway_db_path(settings.home).is_file():
        book = UserBook(settings.home)
        try:
            for person in book.people():
                add(person.platform, person.user_id, person.role)
        finally:
            book.close()
    for platform, config in settings.gateway.items():
        for owner in config.owners:
            add(platform, str(owner), "owner")
        for user in config.allowed_users:
            add(platform, str(user), "user")
    return found


@contextlib.contextmanager
def _store(home: Path) -> Iterator[SessionStore | None]:
    from grove.store.sessions import SessionStore

    if not (home / "state.db").is_file():
        yield None
        return
    store = SessionStore.open(home / "state.db")
    try:
        yield store
    finally:
        store.db.close()


def _sessions(store: SessionStore, wanted: Any) -> dict[tuple[str, str], list[Any]]:
    """(platform, account) -> its sessions, for the kept conversations `wanted(platform, account)` accepts."""
    from grove.store.sessions import SessionNotFound

    out: dict[tuple[str, str], list[Any]] = {}
    seen: set[str] = set()
    for platform, key, sid in kept(store.db):
        account = account_of(key)
        if sid in seen or not wanted(platform, account):
            continue
        seen.add(sid)
        with contextlib.suppress(SessionNotFound, LookupError):
            out.setdefault((platform, account), []).append(store.get_session(sid))
    return out


def gateway_accounts(settings: Settings, main: SessionStore) -> list[Account]:
    """Every account that has talked to a gateway of this grove, with its sessions (by platform, then id)."""
    known = _known(settings)
    accounts: list[Account] = []
    # owners run in the grove's home; a plain user's conversation is never kept there
    for (platform, account), found in _sessions(main, lambda p, a: True).items():
        user_id, role = known.get((platform, account), (account, "owner"))
        accounts.append(Account(platform, user_id, role, "", found))
    root = users_root(settings.home)
    for platform_dir in sorted(p for p in root.glob("*") if p.is_dir()) if root.is_dir() else []:
        for home in sorted(p for p in platform_dir.iterdir() if p.is_dir()):
            with _store(home) as store:
                if store is None:
                    continue
                folder_of = platform_dir.name  # a home holds only its own platform's conversations
                mine = _sessions(store, lambda p, a, f=folder_of: safe_name(p) == f)
            for (platform, user_id), found in mine.items():  # the kept conversations name the account
                _, role = known.get((platform, user_id), (user_id, ""))
                accounts.append(Account(platform, user_id, role, home.name, found))
    merged: dict[tuple[str, str, str], Account] = {}
    for acc in accounts:
        if (acc.platform, acc.account, acc.folder) in merged:
            merged[(acc.platform, acc.account, acc.folder)].sessions += acc.sessions
        else:
            merged[(acc.platform, acc.account, acc.folder)] = acc
    return sorted(merged.values(), key=lambda a: (a.platform, a.role != "owner", a.account))


def account_home(settings: Settings, platform: str, folder: str) -> Path | None:
    """A listed account's home from its platform and folder name; None for anything that is not one."""
    root = users_root(settings.home)
    if not root.is_dir():
        return None
    for platform_dir in root.iterdir():
        if platform_dir.name == safe_name(platform) and platform_dir.is_dir():
            for home in platform_dir.iterdir():
                if home.name == folder and home.is_dir() and not home.is_symlink():
                    return home
    return None


@contextlib.contextmanager
def account_store(settings: Settings, platform: str, folder: str) -> Iterator[SessionStore | None]:
    """That account's own state.db for the length of a block (None when there is no such account)."""
    home = account_home(settings, platform, folder)
    if home is None:
        yield None
        return
    with _store(home) as store:
        yield store
