"""What the aiohttp fakes (DingTalk, Mattermost, Discord: platforms with websockets) share: an aiohttp app on its
own event loop in a thread on 127.0.0.1, started and stopped as a context manager."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, Self

from aiohttp import web


class AioFake:
    """Subclass: `routes(app)` adds the platform's routes; `before_stop()` closes what the fake holds open."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    async def before_stop(self) -> None:
        """Close websockets the fake holds (the runner's cleanup would wait for them)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run `coro` on the fake's loop from a test's thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def __enter__(self) -> Self:
        self.thread.start()
        self.run(self._start())
        return self

    def __exit__(self, *exc: object) -> None:
        self.run(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    async def _start(self) -> None:
        app = web.Application()
        self.routes(app)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        self.port = self.runner.addresses[0][1]

    async def _stop(self) -> None:
        await self.before_stop()
        if self.runner is not None:
            await self.runner.cleanup()
