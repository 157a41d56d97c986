"""Request pieces the provider tests share: a tool schema and fast settings."""

from __future__ import annotations

from grove.llm.types import ModelSettings

FAST = ModelSettings(timeout=5)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]
