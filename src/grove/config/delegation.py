"""Sub-agent settings: how many children run at once, how deep delegation may go, each child's budgets, and
whether a child may ask the parent's approver. Read from `settings.delegation`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from grove.dataclass_io import STRICT_KEYS, section

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as


@dataclass
class DelegationConfig:
    __pydantic_config__ = STRICT_KEYS

    max_parallel: Annotated[
        int,
        Field(ge=1, le=16, description="children running at once (a local model runs them one at a time)"),
    ] = 3
    max_tasks: Annotated[int, Field(ge=1, le=64, description="children one delegate call may ask for")] = 8
    max_depth: Annotated[
        int, Field(ge=1, le=4, description="levels of children below a session (1 = children never delegate)")
    ] = 1
    max_iterations: Annotated[int, Field(ge=1, description="tool-call rounds per child")] = 20
    max_tokens: Annotated[
        int, Field(ge=1000, description="prompt + completion tokens per child, summed over its model calls")
    ] = 200_000
    max_seconds: Annotated[float, Field(gt=0, description="wall time per child")] = 600.0
    model: Annotated[str | None, Field(description="model spec for children; empty = the parent's model")] = (
        None
    )
    approvals: Annotated[
        Literal["deny", "parent"],
        Field(
            description="deny = a child gets no tool that needs approval and nobody to ask; parent = it gets them "
            "and asks the parent's approver"
        ),
    ] = "deny"
    keep_workspaces: Annotated[
        bool,
        Field(description="keep a child's own workspace folder after the delegate call (for inspection)"),
    ] = False
    allow_tools: Annotated[
        tuple[str, ...],
        Field(
            description="tools not given to children by default that they may have (e.g. skill_manage); "
            "memory and delegate never"
        ),
    ] = ()


def delegation_config(settings: Any) -> DelegationConfig:
    return section(settings, "delegation", DelegationConfig)
