"""Candidate split/join: a SKILL.md splits at `## ` headings into components and joins back byte for byte."""

from __future__ import annotations

import pytest

from grove.evolve.candidate import (
    extra_headings,
    from_candidate,
    heading_of,
    join_body,
    split_body,
    to_candidate,
)

SKILL = """---
name: demo
description: A demo skill. Use when testing.
---
# Demo

Intro text.

## Rules
- one
- two

## Examples
```
## not a heading inside a fence
```
- Example: a -> b
"""


@pytest.mark.parametrize(
    "text",
    [
        SKILL,
        SKILL.rstrip("\n"),
        SKILL.replace("\n", "\r\n"),
        "\ufeff" + SKILL,
        "\n---\nname: x\ndescription: y\n---\n## Only\nbody",
        "---\nname: x\ndescription: y\n---\n",
    ],
)
def test_round_trip_is_byte_exact(text: str) -> None:
    head, parts = to_candidate(text)
    assert from_candidate(head, parts).encode() == text.encode()


def test_sections_are_keyed_in_order_and_fences_do_not_split() -> None:
    _, parts = to_candidate(SKILL)
    assert list(parts) == ["00 preamble", "01 ## Rules", "02 ## Examples"]
    assert "## not a heading" in parts["02 ## Examples"]
    assert heading_of("01 ## Rules") == "## Rules"
    assert heading_of("00 preamble") == ""


def test_join_sorts_by_position_and_a_dropped_section_is_empty() -> None:
    parts = split_body("a\n## B\nb\n## C\nc\n")
    shuffled = dict(reversed(list(parts.items())))
    assert join_body(shuffled) == "a\n## B\nb\n## C\nc\n"
    shuffled["01 ## B"] = ""
    assert join_body(shuffled) == "a\n## C\nc\n"


def test_extra_headings_are_found() -> None:
    assert extra_headings("01 ## B", "## B\nx\n") == []
    assert extra_headings("01 ## B", "## B\nx\n## New\ny\n") == ["## New"]


def test_missing_frontmatter_is_refused() -> None:
    with pytest.raises(ValueError):
        to_candidate("# no frontmatter\n")
