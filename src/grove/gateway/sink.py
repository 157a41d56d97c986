"""What a chat sees of a turn's events: nothing streams (chats get whole messages); notices are kept for the log."""

from __future__ import annotations

import logging

from grove.agent.events import AgentEvents
from grove.llm.types import ToolCall
from grove.tools.registry import ToolResult

log = logging.getLogger("grove.gateway")


class ChatSink(AgentEvents):
    def __init__(self, platform: str, chat_id: str) -> None:
        self.where = f"{platform}:{chat_id}"
        self.notices: list[str] = []
        self.tools: list[str] = []

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        self.tools.append(call.name)
        log.info("%s tool %s", self.where, call.name)

    def on_notice(self, text: str) -> None:
        self.notices.append(text)
        log.info("%s notice: %s", self.where, text)
