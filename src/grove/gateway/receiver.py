"""The HTTP receiver of the platforms that call grove (webhooks, callbacks, button presses): an aiohttp app on the
configured host and port, bound before the adapter says it is up, cleaned up however the adapter stops."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any

Handler = Callable[[Any], Awaitable[Any]]  # aiohttp's request -> response
MAX_BODY = 1024 * 1024


async def start_receiver(
    routes: Iterable[tuple[str, str, Handler]], host: str, port: int, max_body: int = MAX_BODY
) -> tuple[Any, int]:
    """Serves `routes` ((method, path, handler)); returns the runner (its cleanup() stops it) and the bound port
    (port 0 = any free one)."""
    from aiohttp import web

    app = web.Application(client_max_size=max_body)
    for method, path, handler in routes:
        app.router.add_route(method, path, handler)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner, int(runner.addresses[0][1])


@asynccontextmanager
async def receiving(
    routes: Iterable[tuple[str, str, Handler]], host: str, port: int, max_body: int = MAX_BODY
) -> AsyncIterator[int]:
    """`start_receiver` for the length of a block; yields the bound port."""
    runner, bound = await start_receiver(routes, host, port, max_body)
    try:
        yield bound
    finally:
        await runner.cleanup()
