"""A grader file used by the grader tests; it runs in the sandbox (code:<file>:<function>)."""

from __future__ import annotations


def length_is(output: str, expected: int, files: dict[str, str]) -> tuple[float, str]:
    return (1.0 if len(output) == int(expected) else 0.0), f"length {len(output)}"
