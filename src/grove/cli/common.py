"""Small helpers shared by the CLI commands: loading settings with clear errors, failing with an exit code."""

from __future__ import annotations

import sys
from typing import NoReturn

from grove.config import Settings


def load(**overrides: object) -> Settings:
    from grove.config import load_settings

    return load_settings(**overrides)


def fail(message: str, code: int = 1) -> NoReturn:
    print(f"grove: {message}", file=sys.stderr)
    raise SystemExit(code)


def split_csv(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [s.strip() for s in value.split(",") if s.strip()]
