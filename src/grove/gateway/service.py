"""Running platforms' gateways in the foreground, one or several on one event loop, until SIGINT/SIGTERM (what
`grove gateway run` calls). They share the user book, so an account's role and pairing hold on every platform."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import TYPE_CHECKING

from grove.gateway.adapter import GatewayError

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.gateway.core import Gateway

LIBRARY_MODULES = ("telegram", "slack_bolt", "slack_sdk", "discord", "aiohttp", "httpx", "jwt")


def build(settings: Settings, platform: str) -> Gateway:
    """The platform's adapter (its token checked now, so a missing one fails before anything starts)."""
    from grove.config.gateway import gateway_config
    from grove.gateway.core import Gateway
    from grove.gateway.platforms import adapter_class

    adapter = adapter_class(platform)(gateway_config(settings, platform))
    adapter.check()
    return Gateway(settings, adapter)


def run(gateways: Gateway | list[Gateway]) -> None:
    """Receive until interrupted; the platform library's own failures become a GatewayError naming them."""
    from grove.gateway.core import Gateway

    group = [gateways] if isinstance(gateways, Gateway) else list(gateways)

    async def main() -> None:
        loop = asyncio.get_running_loop()

        stopping: set[asyncio.Task[None]] = set()

        def stop_all() -> None:
            for gateway in group:
                task = loop.create_task(gateway.adapter.stop())
                stopping.add(task)
                task.add_done_callback(stopping.discard)

        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread
                loop.add_signal_handler(sig, stop_all)
        await asyncio.gather(*(gateway.run() for gateway in group))

    try:
        asyncio.run(main())
    except GatewayError:
        raise
    except Exception as exc:
        if type(exc).__module__.split(".")[0] in LIBRARY_MODULES:
            names = ", ".join(g.platform for g in group)
            raise GatewayError(f"{names}: {type(exc).__name__}: {exc}") from exc
        raise
