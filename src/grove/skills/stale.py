"""Which skills the curator marked stale (unused for a while): hidden from the prompt index, still searchable.

Kept in `skills/.curator.json` rather than in each SKILL.md, so marking never rewrites a skill or resets its clock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grove.atomic_files import atomic_write_text

STATE_FILE = ".curator.json"


def state_path(home: Path) -> Path:
    return Path(home) / "skills" / STATE_FILE


def read_stale(home: Path) -> dict[str, float]:
    """name -> when it was marked stale (epoch seconds); {} when there is no (readable) state."""
    try:
        data = json.loads(state_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    stale = data.get("stale") if isinstance(data, dict) else None
    return {str(k): float(v) for k, v in stale.items()} if isinstance(stale, dict) else {}


def write_stale(home: Path, stale: dict[str, float]) -> None:
    atomic_write_text(state_path(home), json.dumps({"stale": dict(sorted(stale.items()))}, indent=1) + "\n")


def stale_names(settings: Any) -> set[str]:
    """For the skills index: names to leave out of the system prompt."""
    return set(read_stale(settings.home))
