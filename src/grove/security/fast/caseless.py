"""A case-sensitive twin of an IGNORECASE pattern, for text that is already lowercase: the same matches, found
about twice as fast (Python's regex engine skips its per-character case folding and its quick literal checks work).
"""

from __future__ import annotations

import re
from re import _constants as C  # pyright: ignore[reportAttributeAccessIssue]  # sre opcodes (private: no stub)
from re import _parser as sre_parse  # pyright: ignore[reportAttributeAccessIssue]  # (the same as above)
from typing import Any  # sre's parse tree: (opcode, argument) pairs, no static type

# The four non-ASCII characters IGNORECASE folds onto an ASCII letter (İ ı ſ K, read as i i s k;
# tests/security/test_caseless.py checks this list is complete).
ASCII_FOLDS = "\u0130\u0131\u017f\u212a"
# Text where the twin gives the same matches: no ASCII capitals and none of ASCII_FOLDS.
_UNSAFE_TEXT = re.compile(f"[A-Z{ASCII_FOLDS}]")


def _case_safe(items: Any) -> bool:
    """True when a parsed pattern has no capital or non-ASCII literal, no range touching A-Z or past ASCII, and
    no backreference: on lowercase text such a pattern matches the same with or without IGNORECASE."""
    for op, av in items:
        if op in (C.LITERAL, C.NOT_LITERAL):
            if av >= 0x80 or 0x41 <= av <= 0x5A:
                return False
        elif op is C.RANGE:
            lo, hi = av
            if hi >= 0x80 or (lo <= 0x5A and hi >= 0x41):
                return False
        elif op in (C.GROUPREF, C.GROUPREF_EXISTS):
            return False
        elif op is C.IN:
            if not _case_safe(av):
                return False
        elif op is C.BRANCH:
            if not all(_case_safe(alt) for alt in av[1]):
                return False
        elif op is C.SUBPATTERN:
            if not _case_safe(av[3]):
                return False
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            if not _case_safe(av[2]):
                return False
        elif op in (C.ASSERT, C.ASSERT_NOT):
            if not _case_safe(av[1]):
                return False
        elif op is C.ATOMIC_GROUP:
            if not _case_safe(av):
                return False
        elif op not in (C.ANY, C.AT, C.CATEGORY, C.NEGATE):
            return False  # an opcode this check does not know: keep IGNORECASE
    return True


class Caseless:
    """`finditer`/`search` of an IGNORECASE pattern, through its case-sensitive twin when the text allows."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.twin: re.Pattern[str] | None = None
        if pattern.flags & re.IGNORECASE and not pattern.flags & re.VERBOSE:
            try:
                if _case_safe(sre_parse.parse(pattern.pattern, pattern.flags).data):
                    self.twin = re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)
            except Exception:  # a parser detail of another Python version: keep the pattern as it is
                self.twin = None

    def for_text(self, text: str, lowercase_safe: bool) -> re.Pattern[str]:
        return self.twin if self.twin is not None and lowercase_safe else self.pattern


def lowercase_safe(text: str) -> bool:
    """True when case-sensitive twins may stand in for IGNORECASE patterns on `text`."""
    if text.islower():
        # No capital (A-Z, İ and K are capitals): only the lowercase ı and ſ are left to look for.
        return "\u0131" not in text and "\u017f" not in text
    return _UNSAFE_TEXT.search(text) is None
