"""One-way delivery of a text to a chat ("telegram:12345"), for cron jobs and other unattended senders."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from grove.gateway.adapter import GatewayError, PlatformAdapter


def parse_target(target: str) -> tuple[str, str]:
    """ "<platform>:<chat id>" -> (platform, chat id); a clear error for anything else."""
    platform, sep, chat = target.strip().partition(":")
    if not sep or not platform or not chat.strip():
        raise GatewayError(
            f"delivery target '{target}' must look like '<platform>:<chat id>', e.g. telegram:12345"
        )
    return platform.strip().lower(), chat.strip()


def deliver(settings: Any, target: str, text: str) -> None:
    """Send `text` (split to the platform's limit) to `target`; raises GatewayError when it cannot."""
    from grove.config.gateway import gateway_config
    from grove.gateway.platforms import adapter_class

    platform, chat = parse_target(target)
    adapter = adapter_class(platform)(gateway_config(settings, platform))
    try:
        _run(deliver_with(adapter, chat, text))
    except GatewayError:
        raise
    except Exception as exc:  # the platform library's own errors (network, refused token, unknown chat)
        raise GatewayError(f"{platform}: could not deliver to {chat}: {type(exc).__name__}: {exc}") from exc


async def deliver_with(adapter: PlatformAdapter, chat_id: str, text: str) -> None:
    from grove.gateway.split import split_message

    await adapter.open()
    try:
        for part in split_message(text, adapter.max_text) or ["(empty)"]:
            await adapter.send_text(chat_id, part)
    finally:
        await adapter.close()


def _run(coro: Any) -> None:
    """asyncio.run, also from a thread whose loop is already running (the caller may be async itself)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coro)
        return
    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coro)
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=target, name="grove-delivery")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
