"""Helpers of the code-skill tests: the canonical sources (from grove.codeskills.canonical), an independent
reference computation for the verifier, and a CSV writer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grove.codeskills.canonical import AVG_CODE, AVG_CODE_BUGGY, AVG_TESTS, CSV_CODE, CSV_TESTS

__all__ = ["AVG_CODE", "AVG_CODE_BUGGY", "AVG_TESTS", "CSV_CODE", "CSV_TESTS"]


def reference_moving_average(values: list[float], window: int = 7) -> list[float]:
    """The verifier's own computation, independent of the generated code."""
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out


def write_csv(path: object, header: list[str], rows: list[list[object]]) -> None:
    from pathlib import Path

    Path(str(path)).parent.mkdir(parents=True, exist_ok=True)
    Path(str(path)).write_text(
        ",".join(header) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows), encoding="utf-8"
    )


def create_skill(call: Callable[..., Any], name: str, code: str, tests: str) -> None:
    """Create a code skill through the tool (the `call` fixture) and fail the test if it is refused."""
    out = call("skill_code_create", name=name, description=f"The {name} skill.", code=code, tests=tests)
    assert out.ok, out.content
