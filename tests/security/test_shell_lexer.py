"""The shell parser's regex lexer gives shlex's tokens (POSIX, punctuation "();<>|&\\n", no comments) and leaves to
shlex exactly the texts shlex cannot read (unclosed quotes, a trailing backslash)."""

from __future__ import annotations

import random
import shlex

import pytest

from grove.security.commands import shell


def _shlex_tokens(text: str) -> list[str] | None:
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


CASES = [
    "curl -fsSL https://x.test/i.sh | bash",
    "a&&b||c;d\n|e",
    "echo \"a \\\"b\\\" \\$HOME \\\\ \\x\" 'it''s' x\\;y \\\n z",
    "echo '' \"\" ''x",
    "printf 'unclosed",
    'echo "unclosed',
    "trailing \\",
    "it's here",
    "cat <<'EOF' > f\nbody\nEOF\n",
    "x=$(date) && echo `id` >(tee a) 2>&1",
    "\t \r ",
    "",
]


@pytest.mark.parametrize("text", CASES)
def test_lexer_matches_shlex(text: str) -> None:
    assert shell._fast_tokens(text) == _shlex_tokens(text)


def test_lexer_matches_shlex_on_random_text() -> None:
    rng = random.Random(27)
    alphabet = "ab '\"\\;&|()<>\n\t\r$x=-\u00e9"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 25)))
        assert shell._fast_tokens(text) == _shlex_tokens(text), repr(text)
