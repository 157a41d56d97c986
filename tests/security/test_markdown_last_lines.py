"""The last lines before a code fence, found without splitting the whole prefix, are the ones splitlines gives."""

from __future__ import annotations

import random

from grove.security.skill_scan.markdown_commands import _last_lines


def test_last_lines_match_splitlines_on_every_line_break_kind() -> None:
    rng = random.Random(1)
    pieces = ["a", "b", " ", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "\n\n"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        for end in range(len(text) + 1):
            assert _last_lines(text, end, 3) == text[:end].splitlines()[-3:], (text, end)


def test_last_lines_of_a_long_text() -> None:
    text = "".join(f"line {i}\n" for i in range(10_000)) + "tail"
    assert _last_lines(text, len(text), 3) == ["line 9998", "line 9999", "tail"]
