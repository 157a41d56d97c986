"""Memory settings: character limits of the two files. Read from `settings.memory` when Settings has that section."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class MemoryConfig(BaseModel):
    enabled: bool = Field(True, description="load MEMORY.md / USER.md into new sessions")
    memory_chars: int = Field(
        2200, ge=100, description="limit of MEMORY.md (the agent's notes), in characters"
    )
    user_chars: int = Field(1375, ge=100, description="limit of USER.md (the user's profile), in characters")
    full_notice: float = Field(0.9, gt=0, le=1, description="fill level from which the user sees a notice")


def memory_config(settings: Any) -> MemoryConfig:
    """`settings.memory` if the Settings object has it (a MemoryConfig or a mapping), else the defaults."""
    section = getattr(settings, "memory", None)
    if isinstance(section, MemoryConfig):
        return section
    if isinstance(section, dict):
        return MemoryConfig.model_validate(section)
    if section is not None and hasattr(section, "model_dump"):
        return MemoryConfig.model_validate(section.model_dump())
    return MemoryConfig()
