"""The registry of built-in tools: one module per toolset, gathered here."""

from __future__ import annotations

from grove.tools import code_skills, delegate, files, memory, sessions, skills, terminal, todo
from grove.tools.registry import ToolRegistry


def builtin_registry() -> ToolRegistry:
    return ToolRegistry(
        [
            *files.tools(),
            *terminal.tools(),
            *todo.tools(),
            *skills.tools(),
            *memory.tools(),
            *sessions.tools(),
            *code_skills.tools(),
            *delegate.tools(),
        ]
    )
