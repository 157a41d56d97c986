"""Dashboard login and CSRF: a client key (`grove serve keys add`) is entered once and traded for a random
session token in an HttpOnly, SameSite=Strict cookie; every POST carries that session's CSRF token and, when the
browser sends one, an Origin equal to the server's own."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.requests import Request

from grove.serve.state import ServeState

COOKIE = "grove_dashboard"
LIFETIME = 12 * 3600.0  # a login lasts a working day; the key is never stored in the browser


@dataclass(frozen=True)
class Login:
    key_name: str
    csrf: str
    expires: float
    admin: bool = False  # sees every session and approval and the pages about grove itself


class Logins:
    """Live dashboard logins by token, in memory: a restart logs everyone out, which is fine for one operator."""

    def __init__(self, state: ServeState, max_logins: int = 1000) -> None:
        self.state = state
        self.max_logins = max_logins
        self._by_token: dict[str, Login] = {}
        self._lock = threading.Lock()

    def login(self, key: str) -> str | None:
        """A new session token for a live client key; None when the key is wrong (or no keys exist)."""
        found = self.state.keys.check(key.strip()) if self.state.keys is not None else None
        if found is None:
            return None
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self._lock:
            self._by_token = {t: s for t, s in self._by_token.items() if s.expires > now}
            if len(self._by_token) >= self.max_logins:  # a login flood cannot grow memory without bound
                oldest = min(self._by_token, key=lambda t: self._by_token[t].expires)
                del self._by_token[oldest]
            self._by_token[token] = Login(found.name, secrets.token_urlsafe(24), now + LIFETIME, found.admin)
        return token

    def logout(self, token: str | None) -> None:
        with self._lock:
            self._by_token.pop(token or "", None)

    def current(self, request: Request) -> Login | None:
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        with self._lock:
            found = self._by_token.get(token)
        if found is None or found.expires <= time.time():
            return None
        # the key may have been removed since (grove serve keys remove): its logins end with it; and its admin
        # flag may have changed (grove serve keys admin): the login follows the key, not what it was at login
        live = {k.name: k for k in self.state.keys.list()} if self.state.keys is not None else None
        if live is not None:
            key = live.get(found.key_name)
            if key is None:
                self.logout(token)
                return None
            if key.admin != found.admin:
                found = Login(found.key_name, found.csrf, found.expires, key.admin)
        return found


def same_origin(request: Request) -> bool:
    """A cross-site form post carries the attacker's Origin (or Referer): refused. No header at all is allowed
    (some clients send none); the CSRF token still has to match."""
    host = request.headers.get("host", "")
    for header in ("origin", "referer"):
        value = request.headers.get(header)
        if value is None:
            continue
        if value == "null":
            return False
        parts = urlsplit(value)
        return parts.scheme in ("http", "https") and parts.netloc == host
    return True


def csrf_ok(login: Login, request: Request, sent: str | None) -> bool:
    return same_origin(request) and hmac.compare_digest(login.csrf.encode(), (sent or "").encode())


def safe_next(target: str | None) -> str:
    """Where to go after login: a path on this server only (no //host or scheme: no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target
