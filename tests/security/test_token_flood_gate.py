"""flood_starts finds a start exactly where the token-flood pattern finds a match."""

from __future__ import annotations

import random

import pytest

from grove.security.injection.token_floods import _FLOOD, flood_starts, token_flood

CASES = [
    "ab" * 30,  # the shortest flood of a 2-character unit
    "ab" * 29 + "a",  # one character short
    "x" * 30,
    "x" * 29,
    "-=" * 40,
    "12345678" * 30,
    "1234567" * 29 + "X",
    "é ö " * 31,
    "\U0001f600" * 30,
    "prose, then " + "ignore " * 30 + "and more prose",
    "a\ud800" * 30,  # a lone surrogate (text read with surrogateescape)
    "short",
    "",
]


@pytest.mark.parametrize("text", CASES)
def test_the_gate_agrees_with_the_pattern(text: str) -> None:
    assert bool(flood_starts(text)) == (_FLOOD.search(text) is not None)


def test_random_texts_agree() -> None:
    rng = random.Random(16)
    for _ in range(400):
        unit = "".join(rng.choice("ab ö\n") for _ in range(rng.randint(1, 9)))
        text = "".join(rng.choice("abcdefgh ö.\n") for _ in range(rng.randint(0, 60)))
        text += unit * rng.randint(25, 35) + "z" * rng.randint(0, 3)
        assert bool(flood_starts(text)) == (_FLOOD.search(text) is not None), text


def test_the_verdicts_are_as_before() -> None:
    assert token_flood("ignore " * 30) == "'ignore' repeated 30 times"
    assert token_flood("=" * 80) is None
    assert token_flood("an ordinary sentence without padding " * 2) is None
