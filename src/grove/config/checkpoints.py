"""Checkpoint settings (`checkpoints:` in config.yaml): whether turns are checkpointed and how much is kept."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from grove.dataclass_io import STRICT_KEYS

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as


@dataclass
class CheckpointsConfig:
    __pydantic_config__ = STRICT_KEYS

    enabled: Annotated[
        bool, Field(description="snapshot the workspace before a turn's first change, so `grove undo` works")
    ] = True
    keep: Annotated[int, Field(ge=1, le=10_000, description="checkpoints kept per workspace (oldest go)")] = (
        50
    )
    max_bytes: Annotated[
        int, Field(ge=1 << 20, description="bytes of stored file contents per workspace (oldest go first)")
    ] = 2 << 30
    max_file_bytes: Annotated[
        int, Field(ge=1, description="a bigger file is listed but its content is not kept (undo skips it)")
    ] = 64 << 20
    max_files: Annotated[
        int, Field(ge=1, description="a workspace with more entries gets no checkpoint (and no undo)")
    ] = 50_000
