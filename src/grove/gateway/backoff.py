"""Reconnecting with exponential backoff and jitter: a platform that is down is retried ever more slowly (up to
`ceiling`), a connection that came up resets the delay, and a stop ends the wait at once. Each retry and each
good connection is told to the adapter's `Link` (what the dashboard shows)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grove.gateway.link import Link


@dataclass
class Backoff:
    first: float = 0.2
    ceiling: float = 30.0
    factor: float = 2.0
    attempts: int = 0  # failures since the last good connection
    reconnects: int = 0  # every retry, for the log and the benchmark
    link: Link | None = None  # the connection this backoff reconnects (None: retries of single requests)

    def reset(self) -> None:
        """The connection is up (again)."""
        self.attempts = 0
        if self.link is not None:
            self.link.up()

    def delay(self) -> float:
        base = min(self.ceiling, self.first * self.factor**self.attempts)
        return base * random.uniform(0.5, 1.0)  # jitter: many gateways do not come back in lockstep

    async def wait(self, stop: asyncio.Event, error: BaseException | str | None = None) -> bool:
        """Sleep the next delay after `error`; True if `stop` was set meanwhile (then do not reconnect)."""
        pause = self.delay()
        self.attempts += 1
        self.reconnects += 1
        if self.link is not None:
            self.link.retrying(error, pause, self.attempts)
        # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancel that races its inner result
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(pause):
                await stop.wait()
        return stop.is_set()
