"""A top-level alternation cut down, per text, to the alternatives that can match it: an alternative whose
required literal run (`webhook`, `@`, `http`) is absent from the text can never match, and leftmost-first matching
gives the same matches without it. The cut patterns are compiled once per set of alternatives kept."""

from __future__ import annotations

import re

# re's private parser and compiler: typeshed stubs none of them
from re import _compiler as sre_compile  # pyright: ignore[reportAttributeAccessIssue]
from re import _constants as C  # pyright: ignore[reportAttributeAccessIssue]
from re import _parser as sre_parse  # pyright: ignore[reportAttributeAccessIssue]


def _required(alt: sre_parse.SubPattern) -> str | None:
    """The longest run of literals every match of `alt` contains, or None."""
    best, run = "", ""
    for op, av in alt.data:
        if op is C.LITERAL:
            run += chr(av)
            continue
        best = max(best, run, key=len)
        run = ""
        if op is C.AT:
            continue  # an anchor consumes nothing; the runs on either side are each required
        if op is C.MAX_REPEAT and av[0] >= 1 and len(av[2].data) == 1 and av[2].data[0][0] is C.LITERAL:
            best = max(best, chr(av[2].data[0][1]), key=len)
    best = max(best, run, key=len)
    return best or None


class Pruned:
    """`for_text(text)`: the pattern, or a cheaper one with the same matches on `text`."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self._parsed: sre_parse.SubPattern | None = None
        self._needs: list[str | None] = []
        self._cut: dict[tuple[int, ...], re.Pattern[str] | None] = {}
        try:
            parsed = sre_parse.parse(pattern.pattern, pattern.flags)
            data = parsed.data
            if len(data) == 1 and data[0][0] is C.BRANCH and not pattern.flags & re.IGNORECASE:
                self._parsed = parsed
                self._needs = [_required(alt) for alt in data[0][1][1]]
        except Exception:  # a parser detail of another Python version: no cutting
            self._parsed = None
        if not any(self._needs):
            self._parsed = None

    def for_text(self, text: str) -> re.Pattern[str] | None:
        """None when no alternative can match `text`."""
        if self._parsed is None:
            return self.pattern
        keep = tuple(i for i, need in enumerate(self._needs) if need is None or need in text)
        if len(keep) == len(self._needs):
            return self.pattern
        if keep not in self._cut:
            self._cut[keep] = self._compile(keep) if keep else None
        return self._cut[keep]

    def _compile(self, keep: tuple[int, ...]) -> re.Pattern[str]:
        assert self._parsed is not None
        alts = self._parsed.data[0][1][1]
        sub = sre_parse.SubPattern(self._parsed.state, [(C.BRANCH, (None, [alts[i] for i in keep]))])
        return sre_compile.compile(sub, self.pattern.flags)
