"""Running one platform's gateway in the foreground until SIGINT/SIGTERM (what `grove gateway run` calls)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import TYPE_CHECKING

from grove.gateway.adapter import GatewayError

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.gateway.core import Gateway

LIBRARY_MODULES = ("telegram", "slack_bolt", "slack_sdk", "discord", "aiohttp", "httpx")


def build(settings: Settings, platform: str) -> Gateway:
    """The platform's adapter (its token checked now, so a missing one fails before anything starts)."""
    from grove.config.gateway import gateway_config
    from grove.gateway.core import Gateway
    from grove.gateway.platforms import adapter_class

    adapter = adapter_class(platform)(gateway_config(settings, platform))
    adapter.check()
    return Gateway(settings, adapter)


def run(gateway: Gateway) -> None:
    """Receive until interrupted; the platform library's own failures become a GatewayError naming them."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread
                loop.add_signal_handler(sig, lambda: asyncio.ensure_future(gateway.adapter.stop()))
        await gateway.run()

    try:
        asyncio.run(main())
    except GatewayError:
        raise
    except Exception as exc:
        if type(exc).__module__.split(".")[0] in LIBRARY_MODULES:
            raise GatewayError(f"{gateway.platform}: {type(exc).__name__}: {exc}") from exc
        raise
