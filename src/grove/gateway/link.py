"""A platform's connection as the gateway sees it: connecting, connected, reconnecting (with the backoff's attempt,
next try and last error), down or stopped, and since when. Adapters report through it (`Backoff` does for the
ones that reconnect); the core publishes each change (`link_table.LinkTable`) for the dashboard."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from grove.security.secrets.redact import redact

STATES = ("connecting", "connected", "reconnecting", "down", "stopped")
HEARTBEAT = 15.0  # seconds between the core's "still running" marks
STALE = 4 * HEARTBEAT  # a link not marked for this long belongs to a gateway that died without a word


@dataclass(frozen=True)
class LinkState:
    platform: str
    state: str
    since: float  # when it entered this state
    error: str = ""  # the last failure (redacted), kept while reconnecting and after it went down
    attempts: int = 0  # failed tries since the last good connection
    retry_at: float | None = None  # when the next try is due (reconnecting)
    pid: int = 0  # the gateway process
    seen_at: float = 0.0  # the core's last heartbeat

    def shown(self, now: float | None = None) -> str:
        """The state for a reader: a live state, or "down" when the gateway stopped marking it."""
        now = time.time() if now is None else now
        if self.state not in ("down", "stopped") and now - self.seen_at > STALE:
            return "down"
        return self.state

    def why(self, now: float | None = None) -> str:
        """What to say next to the state: the last error, the next try, or why a silent link counts as down."""
        now = time.time() if now is None else now
        if self.shown(now) == "down" and self.state not in ("down", "stopped"):
            return f"no word from the gateway (pid {self.pid}) for {int(now - self.seen_at)} s"
        if self.state == "reconnecting" and self.retry_at is not None:
            wait = max(0.0, self.retry_at - now)
            return f"attempt {self.attempts}, next try in {wait:.1f} s; last error: {self.error or '-'}"
        return self.error


Listener = Callable[[LinkState], None]


class Link:
    """One platform's connection in this process; every change goes to `on_change` (set by the core)."""

    def __init__(self, platform: str, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.state = LinkState(platform, "connecting", clock(), pid=os.getpid(), seen_at=clock())
        self.on_change: Listener | None = None

    def _set(self, state: str, error: BaseException | str | None = None, **fields: object) -> None:
        now = self.clock()
        text = self.state.error if error is None else redact(_text(error))[:500]
        since = self.state.since if state == self.state.state else now
        new = replace(self.state, state=state, since=since, error=text, seen_at=now, **fields)
        if new == replace(self.state, seen_at=now):
            return  # nothing changed (a reconnecting adapter says "up" after every good poll)
        self.state = new
        if self.on_change is not None:
            self.on_change(new)

    def up(self) -> None:
        if self.state.state != "connected":
            self._set("connected", "", attempts=0, retry_at=None)

    def retrying(self, error: BaseException | str | None, delay: float, attempts: int) -> None:
        self._set(
            "reconnecting", error or "connection lost", attempts=attempts, retry_at=self.clock() + delay
        )

    def down(self, error: BaseException | str) -> None:
        self._set("down", error, retry_at=None)

    def stopped(self) -> None:
        self._set("stopped", retry_at=None)


def _text(error: BaseException | str) -> str:
    if isinstance(error, BaseException):
        return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return error
