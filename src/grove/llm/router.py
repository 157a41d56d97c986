"""Resilience around models: retry with exponential backoff and full jitter, Retry-After, a fallback chain.

The router is itself a Model, so the turn loop never knows whether it talks to one provider or a chain.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from grove.llm.errors import FALLBACK_OK, ErrorKind, ModelError
from grove.llm.types import Completion, Message, Model, ModelSettings, TextCallback, ToolSchema, Usage


@dataclass
class RetryPolicy:
    attempts: int = 4  # tries per model, the first included
    base_delay: float = 1.0
    max_delay: float = 60.0

    def delay(self, attempt: int, error: ModelError, rng: random.Random) -> float:
        """Full jitter: uniform(0, min(cap, base * 2^attempt)); a server's Retry-After wins when it gives one."""
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), self.max_delay)
        return rng.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


@dataclass
class RouterEvent:
    model: str
    attempt: int
    error: ModelError
    action: str  # "retry" | "fallback" | "stop"
    delay: float = 0.0


@dataclass
class Router:
    models: list[Model]
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    sleep: Callable[[float], None] = time.sleep
    on_event: Callable[[RouterEvent], None] | None = None
    rng: random.Random = field(default_factory=random.Random)
    usage: Usage = field(default_factory=Usage)  # accumulated over the router's life (one session)
    calls: int = 0

    def __post_init__(self) -> None:
        if not self.models:
            raise ValueError("a router needs at least one model")

    @property
    def name(self) -> str:
        return self.models[0].name

    @property
    def context_window(self) -> int:
        return self.models[0].context_window

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        last: ModelError | None = None
        for index, model in enumerate(self.models):
            for attempt in range(self.retry.attempts):
                try:
                    completion = model.complete(messages, tools, settings, on_text)
                except ModelError as e:
                    e.model = e.model or model.name
                    last = e
                    if e.retryable and attempt + 1 < self.retry.attempts:
                        delay = self.retry.delay(attempt, e, self.rng)
                        self._emit(model.name, attempt, e, "retry", delay)
                        self.sleep(delay)
                        continue
                    break
                self.calls += 1
                self.usage = self.usage + completion.usage
                completion.model = completion.model or model.name
                return completion
            assert last is not None
            if last.kind not in FALLBACK_OK or index + 1 == len(self.models):
                self._emit(model.name, attempt, last, "stop")
                raise last
            self._emit(model.name, attempt, last, "fallback")
        raise last or ModelError(ErrorKind.UNKNOWN, "no model answered")

    def _emit(self, model: str, attempt: int, error: ModelError, action: str, delay: float = 0.0) -> None:
        if self.on_event:
            self.on_event(RouterEvent(model, attempt, error, action, delay))
