"""Regular expressions compiled on first use, so a module's table of patterns costs nothing until a text needs it.

A one-shot run imports the secret, command and claim tables but reaches only a few of their patterns; compiling
all of them at import was most of its start-up growth. `later(...)` is a drop-in for `re.compile(...)`.
What a compile produces is kept beside the module's bytecode (see grove.regex_cache), so a later process skips
parsing; GROVE_REGEX_CACHE=0 turns that off.
"""

from __future__ import annotations

import re
from typing import Any, cast

from grove import regex_cache

# What callers use of a compiled pattern: copied onto the stand-in at first use, so later calls are plain attribute
# reads on it (no __getattr__ on the hot path).
_FORWARDED = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "scanner",
    "pattern",
    "flags",
    "groups",
    "groupindex",
)


class _Later:
    """Stands in for a compiled pattern until an attribute is first read, then compiles once."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(
        self, name: str
    ) -> Any:  # called only while an attribute is missing, i.e. before compiling
        compiled = regex_cache.compile(*self._source)
        for attr in _FORWARDED:
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"later({self._source[0]!r}, {self._source[1]!r})"


def later(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when the pattern is first used (a syntax error surfaces then: every
    module's patterns are compiled by tests/test_lazy_regex.py, so none reaches a user)."""
    return cast("re.Pattern[str]", _Later(pattern, int(flags)))
