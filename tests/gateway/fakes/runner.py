"""Running a gateway on its own event loop in a thread, as `grove gateway run` would, against a fake platform."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from grove.gateway.core import Gateway


@contextmanager
def running(gateway: Gateway) -> Iterator[Gateway]:
    """The gateway receiving in a background thread until the block ends; its failure fails the test."""
    failure: list[BaseException] = []
    started = threading.Event()

    async def main() -> None:
        task = asyncio.create_task(gateway.run())
        started.set()
        await task

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:
            failure.append(exc)
            started.set()

    thread = threading.Thread(target=target, name="gateway-under-test", daemon=True)
    thread.start()
    started.wait(10)
    try:
        yield gateway
    finally:
        if gateway.loop is not None and thread.is_alive():
            asyncio.run_coroutine_threadsafe(gateway.adapter.stop(), gateway.loop).result(10)
        thread.join(20)
        if failure:  # the gateway's own error explains a test that waited in vain
            raise failure[0]
    if thread.is_alive():  # where it hangs, for whoever reads the failure
        import sys
        import traceback

        stacks = "\n".join(
            f"--- {t.name}\n" + "".join(traceback.format_stack(sys._current_frames()[t.ident]))
            for t in threading.enumerate()
            if t.ident in sys._current_frames() and t is not threading.current_thread()
        )
        raise AssertionError(f"the gateway did not stop\n{_tasks(gateway)}\n{stacks}")


def _tasks(gateway: Gateway) -> str:
    """The stacks of the gateway loop's pending tasks (what it waits for)."""
    import io

    async def dump() -> str:
        out = io.StringIO()
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.print_stack(file=out)
        return out.getvalue()

    try:
        assert gateway.loop is not None
        return asyncio.run_coroutine_threadsafe(dump(), gateway.loop).result(5)
    except Exception as exc:
        return f"(tasks not readable: {exc!r})"
