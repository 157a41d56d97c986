"""Serving one ACP connection on stdin/stdout until the editor closes it."""

from __future__ import annotations

import asyncio
from typing import Any

from grove.acp.agent import GroveAcpAgent, Options


def serve_stdio(settings: Any, options: Options) -> None:
    import acp

    agent = GroveAcpAgent(settings, options)
    try:
        asyncio.run(acp.run_agent(agent))
    finally:
        agent.close()
