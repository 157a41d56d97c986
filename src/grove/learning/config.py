"""Learning settings: review triggers, the reviewer's budget, the curator's schedule and thresholds.

Read from `settings.learning` when Settings has that section, else these defaults (the peers' tested values).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class LearningConfig(BaseModel):
    review: bool = Field(True, description="run the background reviewer after turns that show a pattern")
    review_model: str | None = Field(None, description="model spec for the reviewer; empty = the session's")
    review_model_calls: int = Field(10, ge=1, description="model calls (turn or since last skill write)")
    review_tool_calls: int = Field(
        5, ge=1, description="tool calls in one turn that make a task worth reviewing"
    )
    memory_review_turns: int = Field(10, ge=1, description="user turns between memory reviews")
    reviewer_max_iterations: int = Field(16, ge=1, le=64)
    curator: bool = Field(True, description="let the curator run when grove has been idle")
    curator_idle_hours: float = Field(2.0, ge=0)
    curator_interval_days: float = Field(7.0, ge=0)
    stale_days: float = Field(30.0, gt=0, description="unused this long: hidden from the index")
    archive_days: float = Field(90.0, gt=0, description="unused this long: archived (restorable)")
    overlap_threshold: float = Field(
        0.45, gt=0, le=1, description="lexical similarity that counts as overlap"
    )


def learning_config(settings: Any) -> LearningConfig:
    section = getattr(settings, "learning", None)
    if isinstance(section, LearningConfig):
        return section
    if isinstance(section, dict):
        return LearningConfig.model_validate(section)
    if section is not None and hasattr(section, "model_dump"):
        return LearningConfig.model_validate(section.model_dump())
    return LearningConfig()
