"""Splitting answers to a platform's limit: nothing lost, breaks at paragraphs/lines/words, code fences closed
and reopened across pieces."""

from __future__ import annotations

import pytest

from grove.gateway.split import split_message


def test_short_text_is_one_piece_and_empty_is_none() -> None:
    assert split_message("hello", 100) == ["hello"]
    assert split_message("\n\n", 100) == []


@pytest.mark.parametrize("limit", [20, 50, 2000, 4096])
def test_every_piece_fits_and_no_word_is_lost(limit: int) -> None:
    text = "\n\n".join(f"Paragraph {i}.\n" + " ".join(f"w{i}_{j}" for j in range(200)) for i in range(30))
    parts = split_message(text, limit)
    assert all(len(p) <= limit for p in parts)
    assert " ".join(parts).split() == text.split()


def test_breaks_prefer_paragraphs() -> None:
    text = "a" * 40 + "\n\n" + "b" * 40 + "\nc c c"
    assert split_message(text, 60) == ["a" * 40, "b" * 40 + "\nc c c"]


def test_a_word_longer_than_the_limit_is_cut() -> None:
    parts = split_message("x" * 125, 50)
    assert "".join(parts) == "x" * 125 and all(len(p) <= 50 for p in parts)


def test_code_fences_are_closed_and_reopened() -> None:
    code = "\n".join(f"print({i})" for i in range(40))
    text = f"Here:\n```python\n{code}\n```\nDone."
    parts = split_message(text, 120)
    assert len(parts) > 1 and all(len(p) <= 120 for p in parts)
    for part in parts:
        assert part.count("```") % 2 == 0, part  # every piece renders on its own
    middle = next(p for p in parts if "print(20)" in p)
    assert middle.startswith("```python\n")
    lines = [ln for p in parts for ln in p.split("\n") if ln.startswith("print(")]
    assert lines == code.split("\n")
