"""Running a turn for a request: model and configuration failures become API errors, a client hanging up stops
the turn at its next step, and a streamed turn is an async iterator of its text deltas, then its outcome."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request

from grove.serve.errors import ApiError
from grove.serve.turns import TurnOutcome, TurnRequest, TurnRunner


async def run_turn(
    runner: TurnRunner,
    key: str,
    conversation: str,
    turn: TurnRequest,
    spec: str | None,
    on_text: Any,
    request: Request,
    stop: threading.Event | None = None,
) -> TurnOutcome:
    """Runs the turn; if the client hangs up meanwhile, the turn stops at its next step (what it did is kept)."""
    from grove.errors import GroveError
    from grove.llm.errors import ModelError
    from grove.llm.images import CannotSee

    stop = stop or threading.Event()
    watcher = asyncio.create_task(_until_disconnect(request, stop))
    try:
        return await runner.run(key, conversation, turn, spec, on_text, stop)
    except (
        CannotSee
    ) as exc:  # images sent to a model that cannot see: the request's to change, not the model's
        raise ApiError(400, str(exc), "invalid_request_error", "unsupported_content", "messages") from exc
    except ModelError as exc:
        raise ApiError(502, f"the model failed: {exc}", "api_error", "model_error") from exc
    except GroveError as exc:  # a configuration problem (no model configured, a bad spec): the operator's
        raise ApiError(502, f"grove could not run the turn: {exc}", "api_error", "grove_error") from exc
    finally:
        watcher.cancel()


async def _until_disconnect(request: Request, stop: threading.Event) -> None:
    """Sets `stop` when the client hangs up. The body is read already, so the next ASGI message is the
    disconnect; under ASGI 2.4 (uvicorn) nothing else tells a streaming response the client has gone."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    stop.set()


async def streamed_turn(
    runner: TurnRunner,
    key: str,
    conversation: str,
    turn: TurnRequest,
    spec: str | None,
    request: Request,
) -> AsyncIterator[str | TurnOutcome]:
    """Each text delta as the worker thread produces it (through a queue), then the outcome; a failure is
    raised after the deltas. If the consumer stops early (the client went away) the turn is told to stop."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def on_text(delta: str) -> None:  # in the worker thread
        loop.call_soon_threadsafe(queue.put_nowait, delta)

    stop = threading.Event()
    task = asyncio.create_task(run_turn(runner, key, conversation, turn, spec, on_text, request, stop))
    # after the deltas the thread scheduled: call_soon_threadsafe callbacks run in order, and this one last
    task.add_done_callback(lambda _: loop.call_soon(queue.put_nowait, None))
    try:
        while (delta := await queue.get()) is not None:
            if delta:
                yield delta
        yield task.result()
    finally:
        if not task.done():  # the client went away: the turn stops at its next step; what it did is kept
            stop.set()
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
