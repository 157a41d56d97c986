"""A Python grader used by the grader tests."""

from __future__ import annotations


def length_is(output: str, expected: int) -> tuple[float, str]:
    return (1.0 if len(output) == int(expected) else 0.0), f"length {len(output)}"
