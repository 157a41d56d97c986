"""Serving one ACP connection on stdin/stdout until the editor closes it."""

from __future__ import annotations

import asyncio
from typing import Any

from grove.acp.agent import GroveAcpAgent, Options


def serve_stdio(settings: Any, options: Options) -> None:
    import acp

    agent = GroveAcpAgent(settings, options)
    try:
        # the SDK answers method-not-found for the optional methods grove leaves out (load/list sessions, modes)
        asyncio.run(acp.run_agent(agent))  # pyright: ignore[reportArgumentType]
    finally:
        agent.close()
