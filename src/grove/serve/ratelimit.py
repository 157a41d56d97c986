"""Per-key token buckets: `rate` requests per minute on average, bursts of up to `burst`; an empty bucket says
how long until the next request may come (the 429's Retry-After)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class RateLimiter:
    def __init__(
        self, rate_per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate_per_minute
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)
        self._lock = threading.Lock()

    def take(self, key: str, rate_per_minute: float | None = None) -> float:
        """Takes one request's token; returns 0 when allowed, else the seconds to wait (rounded up, >= 1)."""
        per_second = (rate_per_minute or self.rate) / 60.0
        capacity = float(max(1, self.burst))
        now = self.clock()
        with self._lock:
            tokens, at = self._buckets.get(key, (capacity, now))
            tokens = min(capacity, tokens + (now - at) * per_second)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
        return float(max(1, math.ceil((1.0 - tokens) / per_second)))
