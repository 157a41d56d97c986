"""What configured MCP servers cost every model call: system prompt + tool schemas, in tokens (tiktoken o200k when
installed, else ~4 characters a token), with no server, with the reference servers reached lazily (mcp_list /
mcp_call), and with the same servers registered eagerly (<server>__<tool>). Also the time to first tool call.

    python benchmarks/mcp_tokens.py
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from grove.config import Settings
from grove.config.mcp import McpConfig, McpServerConfig
from grove.llm.script import ScriptModel
from grove.mcp_client.manager import McpManager, close_shared
from grove.runtime import Profile, Session

SERVERS = [
    McpServerConfig(name="time", command="mcp-server-time", args=["--local-timezone", "UTC"], timeout=60),
    McpServerConfig(name="git", command="mcp-server-git", timeout=60),
]


def counter() -> tuple[str, Any]:
    try:
        import tiktoken

        enc = tiktoken.get_encoding("o200k_base")
        return "tiktoken o200k_base", lambda s: len(enc.encode(s))
    except Exception:
        return "chars/4", lambda s: len(s) // 4


def cost(home: Path, servers: list[McpServerConfig], count: Any) -> tuple[int, int, int]:
    """(system prompt tokens, tool schema tokens, number of tools) of a new session."""
    settings = Settings(home=home, mcp=McpConfig(servers={s.name: s for s in servers}))
    profile = Profile(source="bench", model=ScriptModel([{"text": "ok"}]), workspace=home)
    session = Session.open(settings, profile)
    try:
        system = str(session.agent.messages[0]["content"])
        schemas = json.dumps(session.agent.tools.schemas(), ensure_ascii=False)
        return count(system), count(schemas), len(session.agent.tools)
    finally:
        session.close()


def main() -> None:
    name, count = counter()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["GROVE_HOME"] = str(home)
        none = cost(home, [], count)
        lazy_cold = cost(home, SERVERS, count)  # no cached tool list yet: the names are not shown
        manager = McpManager(SERVERS, home)
        started = time.perf_counter()
        manager.list_tools("time")
        first_list = time.perf_counter() - started
        started = time.perf_counter()
        manager.call_tool("time", "get_current_time", {"timezone": "UTC"})
        warm_call = time.perf_counter() - started
        manager.list_tools("git")
        manager.close()
        lazy = cost(home, SERVERS, count)
        eager = cost(home, [McpServerConfig(**{**s.__dict__, "eager": True}) for s in SERVERS], count)
        close_shared()
    print(f"tokens per call ({name}); servers: time (2 tools) + git (12 tools)")
    print(f"{'':22}{'system':>8}{'schemas':>9}{'total':>8}{'tools':>7}")
    rows = {"no server": none, "lazy, not listed": lazy_cold, "lazy, listed": lazy, "eager": eager}
    for label, (system, schemas, n) in rows.items():
        print(f"{label:22}{system:>8}{schemas:>9}{system + schemas:>8}{n:>7}")
    print(f"time server: start + list {first_list:.2f}s, a warm call {warm_call * 1000:.1f} ms")
    total = {
        k: v[0] + v[1] for k, v in zip(("none", "lazy_cold", "lazy", "eager"), rows.values(), strict=True)
    }
    print(
        " ".join(f"tokens_{k}={v}" for k, v in total.items())
        + f" lazy_extra={total['lazy'] - total['none']} eager_extra={total['eager'] - total['none']}"
        + f" start_list_s={first_list:.2f} warm_call_ms={warm_call * 1000:.1f}"
    )


if __name__ == "__main__":
    main()
