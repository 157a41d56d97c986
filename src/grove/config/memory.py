"""Memory settings: character limits of the two files. Read from `settings.memory` when Settings has that section."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from grove.dataclass_io import STRICT_KEYS, section

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as


@dataclass
class MemoryConfig:
    __pydantic_config__ = STRICT_KEYS

    enabled: Annotated[bool, Field(description="load MEMORY.md / USER.md into new sessions")] = True
    memory_chars: Annotated[
        int, Field(ge=100, description="limit of MEMORY.md (the agent's notes), in characters")
    ] = 2200
    user_chars: Annotated[
        int, Field(ge=100, description="limit of USER.md (the user's profile), in characters")
    ] = 1375
    full_notice: Annotated[
        float, Field(gt=0, le=1, description="fill level from which the user sees a notice")
    ] = 0.9


def memory_config(settings: Any) -> MemoryConfig:
    return section(settings, "memory", MemoryConfig)
