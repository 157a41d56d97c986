"""The streamable-HTTP event store of `grove mcp serve --http`: the last events of each stream kept in memory, so
the SDK sends the priming event and `retry:` and a client that lost its stream resumes with Last-Event-ID."""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any

KEPT = 1000  # events kept over all streams; a client further behind than this starts afresh


def event_store() -> Any:
    from mcp.server.streamable_http import EventMessage, EventStore

    class MemoryEvents(EventStore):
        def __init__(self) -> None:
            self._events: OrderedDict[str, tuple[str, Any]] = OrderedDict()
            self._ids = itertools.count(1)

        async def store_event(self, stream_id: str, message: Any) -> str:
            event_id = str(next(self._ids))
            self._events[event_id] = (stream_id, message)
            while len(self._events) > KEPT:
                self._events.popitem(last=False)
            return event_id

        async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
            if last_event_id not in self._events:
                return None
            stream_id = self._events[last_event_id][0]
            after = False
            for event_id, (stream, message) in list(self._events.items()):
                if after and stream == stream_id and message is not None:
                    await send_callback(EventMessage(message, event_id))
                after = after or event_id == last_event_id
            return stream_id

    return MemoryEvents()
