"""A chat quiet for `idle_minutes` has its session closed (review and memory run then, not at exit); its next
message resumes the same conversation. A chat with a turn running is never closed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from grove.config import Settings
from grove.config.gateway import GatewayPlatformConfig
from grove.gateway.adapter import Choice, Incoming, PlatformAdapter
from grove.gateway.core import Gateway
from grove.llm.script import ScriptModel


class MemoryAdapter(PlatformAdapter):
    """A platform in memory: the test calls `on_message` itself; sent texts are kept."""

    name = "memory"
    max_text = 4000
    token_env = "MEMORY_TOKEN"

    def __init__(self, config: GatewayPlatformConfig) -> None:
        super().__init__(config)
        self.sent: list[tuple[str, str]] = []

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def connect(self, on_message: Any, on_button: Any) -> None: ...
    async def stop(self) -> None: ...

    async def send_text(self, chat_id: str, text: str) -> None:
        self.sent.append((chat_id, text))

    async def send_file(self, chat_id: str, path: Path) -> None: ...
    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None: ...
    async def typing(self, chat_id: str) -> None: ...


def heard(messages: list[dict[str, Any]], tools: list[Any]) -> str:
    return "heard: " + " | ".join(str(m["content"]) for m in messages if m["role"] == "user")


def test_idle_chats_are_closed_and_resume(settings: Settings, tmp_path: Path) -> None:
    config = GatewayPlatformConfig(allow_everyone=True, workspace=str(tmp_path / "ws"), idle_minutes=10)
    settings.gateway = {"memory": config}  # type: ignore[attr-defined]
    adapter = MemoryAdapter(config)
    gateway = Gateway(settings, adapter, model=ScriptModel(heard))
    now = [1000.0]
    gateway.clock = lambda: now[0]

    async def scenario() -> None:
        from grove.gateway.approvals import ApprovalBox

        gateway.loop = asyncio.get_running_loop()
        gateway.approvals = ApprovalBox(gateway.loop, adapter.ask)
        await gateway._handle(Incoming("a", "u1", "my name is Ada"))
        await gateway._handle(Incoming("b", "u2", "hello"))
        first_id = gateway.sessions["a", "u1"].id
        now[0] += 9 * 60
        await gateway._handle(Incoming("b", "u2", "still here"))
        assert await gateway.close_idle() == []  # nine minutes: not idle yet
        now[0] += 2 * 60
        assert await gateway.close_idle() == ["a"]  # eleven minutes quiet; b spoke two minutes ago
        assert set(gateway.sessions) == {("b", "u2")}
        await gateway._handle(Incoming("a", "u1", "what is my name?"))
        assert gateway.sessions["a", "u1"].id == first_id  # resumed, not a new conversation
        lock = gateway.locks["b", "u2"]
        now[0] += 60 * 60
        async with lock:  # a turn of b is running: b is busy, not idle
            assert await gateway.close_idle() == ["a"]
        assert await gateway.close_idle() == ["b"]
        for session in list(gateway.sessions.values()):
            session.close()

    asyncio.run(scenario())
    assert adapter.sent[-1] == ("a", "heard: my name is Ada | what is my name?")
