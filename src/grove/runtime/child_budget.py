"""A child's model: the model it runs on, behind its time and token budgets, and every call's usage and cost
counted in its ancestors' sessions too (the parent's usage includes its children's)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from grove.llm.types import Completion, Message, Model, ModelSettings, TextCallback, ToolSchema


class BudgetExceeded(Exception):
    """A child used up its time or token budget; it stops before its next model call."""


class Stopped(BudgetExceeded):
    """The parent stopped its children (its turn was interrupted)."""


class BudgetedModel:
    """Wraps the child's model. Checked before each call (a call in flight is never cut): past the deadline, or
    with the token budget spent, the child stops with BudgetExceeded; `stop()` does the same from outside."""

    def __init__(
        self,
        inner: Model,
        *,
        seconds: float,
        max_tokens: int,
        on_usage: Callable[[Completion], None],
    ) -> None:
        self.inner = inner
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.max_tokens = max_tokens
        self.on_usage = on_usage
        self.tokens = 0
        self.calls = 0
        self._stopped = threading.Event()
        self._reason = ""

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def context_window(self) -> int:
        return self.inner.context_window

    def __getattr__(self, attr: str) -> Any:  # what else the agent may ask of a model (count_tokens, ...)
        return getattr(self.inner, attr)

    def stop(self, reason: str | None = None) -> None:
        """Stop before the next call: past the time budget (the runner's timeout), or with `reason` (Stopped)."""
        self._reason = reason or ""
        self._stopped.set()

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        if self._stopped.is_set():
            if self._reason:
                raise Stopped(self._reason)
            raise BudgetExceeded(f"time budget of {self.seconds:g}s used up")
        if time.monotonic() > self.deadline:
            raise BudgetExceeded(f"time budget of {self.seconds:g}s used up")
        if self.tokens >= self.max_tokens:
            raise BudgetExceeded(f"token budget of {self.max_tokens} used up ({self.tokens} tokens)")
        completion = self.inner.complete(messages, tools, settings, on_text)
        self.calls += 1
        self.tokens += completion.usage.prompt_tokens + completion.usage.completion_tokens
        self.on_usage(completion)
        return completion


def usage_to(store: Any, session_ids: list[str]) -> Callable[[Completion], None]:
    """A callback adding one call's usage and cost to each of `session_ids` in state.db."""

    def add(completion: Completion) -> None:
        try:
            from grove.llm.pricing import cost_usd

            cost = cost_usd(completion.model, completion.usage)
        except ImportError:
            cost = 0.0
        for sid in session_ids:
            store.add_usage(sid, completion.usage, cost)

    return add
