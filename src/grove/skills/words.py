"""The words of skill text as search sees them: lower-case terms, stop words dropped, lightly stemmed."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = """
a an and are as at be but by can do does for from get got has have how i if in into is it its me my need
of on or our please so some that the their them then there these this those to up us use using want was we
what when where which while who why will with without you your all any not no now out over just make
"""
STOPWORDS = frozenset(_STOP_TEXT.split())


def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'deploying', 'deployed' and 'deploys' to one term."""
    for suffix, repl, min_len in (
        ("ies", "y", 5),
        ("sses", "ss", 5),
        ("ing", "", 6),
        ("ers", "er", 5),
        ("ed", "", 5),
        ("es", "e", 5),
        ("s", "", 4),
    ):
        if word.endswith(suffix) and len(word) >= min_len and not word.endswith("ss"):
            word = word[: len(word) - len(suffix)] + repl
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


def terms(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]
