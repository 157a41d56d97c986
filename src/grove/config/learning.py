"""Learning settings: review triggers, the reviewer's budget, the curator's schedule and thresholds.

Read from `settings.learning` when Settings has that section, else these defaults (the peers' tested values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from grove.dataclass_io import STRICT_KEYS, section

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as


@dataclass
class LearningConfig:
    __pydantic_config__ = STRICT_KEYS

    review: Annotated[
        bool, Field(description="run the background reviewer after turns that show a pattern")
    ] = True
    review_model: Annotated[
        str | None, Field(description="model spec for the reviewer; empty = the session's")
    ] = None
    review_model_calls: Annotated[
        int, Field(ge=1, description="model calls (turn or since last skill write)")
    ] = 10
    review_tool_calls: Annotated[
        int, Field(ge=1, description="tool calls in one turn that make a task worth reviewing")
    ] = 5
    memory_review_turns: Annotated[int, Field(ge=1, description="user turns between memory reviews")] = 10
    reviewer_max_iterations: Annotated[int, Field(ge=1, le=64)] = 16
    curator: Annotated[bool, Field(description="let the curator run when grove has been idle")] = True
    curator_model: Annotated[
        str | None,
        Field(description="model spec that proposes merges; empty = review_model, else the session's"),
    ] = None
    curator_idle_hours: Annotated[float, Field(ge=0)] = 2.0
    curator_interval_days: Annotated[float, Field(ge=0)] = 7.0
    stale_days: Annotated[float, Field(gt=0, description="unused this long: hidden from the index")] = 30.0
    archive_days: Annotated[float, Field(gt=0, description="unused this long: archived (restorable)")] = 90.0
    grade_min_uses: Annotated[
        int, Field(ge=1, description="graded uses before a skill's success rate is trusted")
    ] = 3
    weak_success_rate: Annotated[
        float,
        Field(ge=0, le=1, description="below this success rate an agent-made skill is proposed for a patch"),
    ] = 0.5
    skill_probes: Annotated[
        bool,
        Field(
            description="hold the reviewer's SKILL.md changes to probes (a task + checks) replayed on its model; "
            "a change is written only when they pass"
        ),
    ] = False
    probe_replays: Annotated[
        int, Field(ge=0, description="probe replays one review may spend (each probe: with and without)")
    ] = 4
    overlap_threshold: Annotated[
        float, Field(gt=0, le=1, description="lexical similarity that counts as overlap")
    ] = 0.45


def learning_config(settings: Any) -> LearningConfig:
    return section(settings, "learning", LearningConfig)
