"""Spend caps (`spend:` in config.yaml): per day and month, in dollars and tokens, over every entrance together
and per serve key, gateway user and entrance (profile)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated

from grove.dataclass_io import STRICT_KEYS

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as


@dataclass
class SpendCaps:
    """One scope's caps; empty = no cap for that period and unit. Days and months are UTC."""

    __pydantic_config__ = STRICT_KEYS

    day_usd: Annotated[float | None, Field(ge=0, description="US dollars per UTC day")] = None
    month_usd: Annotated[float | None, Field(ge=0, description="US dollars per UTC month")] = None
    day_tokens: Annotated[int | None, Field(ge=0, description="prompt + completion tokens per UTC day")] = (
        None
    )
    month_tokens: Annotated[int | None, Field(ge=0, description="prompt + completion tokens per month")] = (
        None
    )


@dataclass
class SpendConfig(SpendCaps):
    """The top-level caps hold for every entrance together; `keys`, `users` and `profiles` cap one serve key
    (its name), one gateway user ('telegram:1234') or one entrance ('cli', 'api', 'cron', a platform), and '*'
    in any of them caps each member alone."""

    __pydantic_config__ = STRICT_KEYS

    keys: dict[str, SpendCaps] = field(default_factory=dict, metadata={"values": SpendCaps})
    users: dict[str, SpendCaps] = field(default_factory=dict, metadata={"values": SpendCaps})
    profiles: dict[str, SpendCaps] = field(default_factory=dict, metadata={"values": SpendCaps})
    output_reserve: Annotated[
        int, Field(ge=1, description="completion tokens reserved before a request with no max_tokens")
    ] = 1024
