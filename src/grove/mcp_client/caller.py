"""Whose session a server's own requests (sampling, elicitation, roots) are answered for: the call in flight. A
2026-07-28 server asks inside the call's answer (`InputRequiredResult`), so the asking task knows its caller; a
handshake-era server asks on the connection, so the one call in flight is its caller, and with several (sessions
sharing a server) there is none: what needs a session is then refused, never answered for the wrong one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from grove.tools.context import ToolContext


@dataclass(frozen=True)
class Caller:
    """The session a call is made for: its policy (who can be asked), workspace (the roots) and state (its model)."""

    ctx: ToolContext

    @property
    def workspace(self) -> Path:
        return Path(self.ctx.workspace).resolve()


# (id of the Callers, the caller) of the call this task is making; a task may call several servers in turn
_CURRENT: ContextVar[tuple[int, Caller] | None] = ContextVar("grove_mcp_caller", default=None)


class Callers:
    """The calls in flight on one connection, and the caller a server's request is answered for."""

    def __init__(self) -> None:
        self._live: list[Caller] = []

    @contextlib.contextmanager
    def calling(self, caller: Caller | None) -> Iterator[None]:
        if caller is None:
            yield
            return
        token = _CURRENT.set((id(self), caller))
        self._live.append(caller)
        try:
            yield
        finally:
            self._live.remove(caller)
            _CURRENT.reset(token)

    def current(self) -> Caller | None:
        """The caller of the asking call: this task's own, else the only call in flight; None when unknown."""
        mine = _CURRENT.get()
        if mine is not None and mine[0] == id(self):
            return mine[1]
        distinct = {id(c.ctx): c for c in self._live}
        return next(iter(distinct.values())) if len(distinct) == 1 else None
