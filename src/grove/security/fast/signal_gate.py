"""RE2 in front of Python's `re` for the injection signals: one linear pass says which patterns may match a text,
and each pattern that may is run from the places where it may start. Without google-re2 everything runs in `re`;
either way the matches are the same."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator, Sequence
from re import _constants as C  # pyright: ignore[reportAttributeAccessIssue]  # private: typeshed has no stub
from re import _parser as sre_parse  # pyright: ignore[reportAttributeAccessIssue]  # (the same as above)
from typing import Any, cast

from grove.security.fast import shortcuts

# RE2 reads the text as Latin-1 with every character past U+00FF written as U+00FF: one byte a character, so
# RE2's offsets are string indices, and a pattern widened the same way (_clamp) matches wherever Python's does.
_CLAMP = "grove.signal_gate.clamp"


def _clamp_error(e: UnicodeError) -> tuple[str, int]:
    e = cast(UnicodeEncodeError, e)  # registered for encode() below alone
    return "\xff" * (e.end - e.start), e.end


codecs.register_error(_CLAMP, _clamp_error)


def encode(text: str) -> bytes:
    return text.encode("latin-1", _CLAMP)


_MAX = 0x10FFFF
_LATIN1 = [chr(c) for c in range(0x100)]


def _runs(chars: list[str], pattern: str) -> list[tuple[int, int]]:
    return [(ord(c), ord(c)) for c in chars if re.fullmatch(pattern, c)]


# Python's \d \w \s on Latin-1, measured with Python's own `re`: a superset (for a class) adds every character past
# Latin-1, a subset (for a negated class) is the Latin-1 part alone. RE2's classes would be ASCII-only.
_CLASSES: dict[object, tuple[list[tuple[int, int]], list[tuple[int, int]]]] = {
    cat: ([*_runs(_LATIN1, rx), (0x100, _MAX)], _runs(_LATIN1, rx))
    for cat, rx in ((C.CATEGORY_DIGIT, r"\d"), (C.CATEGORY_WORD, r"\w"), (C.CATEGORY_SPACE, r"\s"))
}
_NEGATED = {
    C.CATEGORY_NOT_DIGIT: C.CATEGORY_DIGIT,
    C.CATEGORY_NOT_WORD: C.CATEGORY_WORD,
    C.CATEGORY_NOT_SPACE: C.CATEGORY_SPACE,
}
_WORD_ASCII = frozenset(map(ord, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"))
# x{m,n} stays when n is small; else it is widened to x{min(m, _MAX_LEAST),}: the least count keeps the gate sharp
# (`-{3,}`), a big one only grows the program.
_MAX_LEAST = 32


# One element of sre's parse tree: (opcode, argument), the argument's shape set by the opcode (an int, a pair, a
# sub-list...), which no static type follows.
Item = tuple[object, Any]


class Unsupported(Exception):
    """A construct the widening does not handle: that pattern always runs in Python."""


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out, nxt = [], 0
    for lo, hi in _merge(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _MAX:
        out.append((nxt, _MAX))
    return out


def _category(cat: object, wide: bool) -> list[tuple[int, int]]:
    """The code points of \\d, \\W, ...: a superset when `wide`, else a subset."""
    if cat in _CLASSES:
        sup, sub = _CLASSES[cat]
        return sup if wide else sub
    if cat in _NEGATED:
        sup, sub = _CLASSES[_NEGATED[cat]]
        return _complement(sub if wide else sup)  # the complement of a subset is a superset, and back
    raise Unsupported(str(cat))


def _clamp(ranges: list[tuple[int, int]]) -> str:
    """An RE2 class of the Latin-1 bytes the code points read as (everything past U+00FF is 0xFF)."""
    cut = _merge([(min(lo, 0xFF), min(hi, 0xFF)) for lo, hi in ranges])
    if not cut:
        raise Unsupported("an empty class")
    return "[" + "".join(f"\\x{lo:02x}" if lo == hi else f"\\x{lo:02x}-\\x{hi:02x}" for lo, hi in cut) + "]"


def _class(items: Sequence[Item]) -> str:
    """A `[...]` set as an RE2 class holding at least the characters Python's set holds."""
    negate = bool(items) and items[0][0] is C.NEGATE
    ranges: list[tuple[int, int]] = []
    for op, av in items[1:] if negate else items:
        if op is C.LITERAL:
            ranges.append((av, av))
        elif op is C.RANGE:
            ranges.append(av)
        elif op is C.CATEGORY:
            # A negated set must exclude no more than Python's does: it takes out a subset of the category.
            ranges += _category(av, wide=not negate)
        else:
            raise Unsupported(str(op))
    return _clamp(_complement(ranges) if negate else ranges)


def _literal(c: int) -> str:
    ch = chr(c)
    return ch if ch.isascii() and ch.isalnum() else f"\\x{min(c, 0xFF):02x}"


def _edge(items: Sequence[Item], first: bool) -> bool:
    """True when every match of `items` starts (`first`) or ends with an ASCII word character."""
    for op, av in items if first else reversed(items):
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue  # zero-width: the next element decides
        if op is C.LITERAL:
            return av in _WORD_ASCII
        if op is C.IN:
            return all(
                (o is C.LITERAL and a in _WORD_ASCII)
                or (o is C.RANGE and all(c in _WORD_ASCII for c in range(a[0], a[1] + 1)))
                for o, a in av
            )
        if op is C.SUBPATTERN:
            return _edge(av[3], first)
        if op is C.ATOMIC_GROUP:
            return _edge(av, first)
        if op is C.BRANCH:
            return all(_edge(alt, first) for alt in av[1])
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            return av[0] >= 1 and _edge(av[2], first)
        return False
    return False


def widen(items: Sequence[Item], multiline: bool = False) -> str:
    """RE2 syntax (Latin-1, clamped) for a parsed case-sensitive Python pattern, matching wherever it matches:
    lookarounds go, and so do anchors RE2 reads differently; long repeats lose their upper bound."""
    out = []
    for i, (op, av) in enumerate(items):
        if op is C.LITERAL:
            out.append(_literal(av))
        elif op is C.NOT_LITERAL:
            out.append(_clamp(_complement([(av, av)])))
        elif op is C.ANY:
            out.append(".")  # superset() rejects DOTALL; in both engines `.` is anything but \n
        elif op is C.IN:
            out.append(_class(av))
        elif op is C.CATEGORY:
            out.append(_clamp(_category(av, wide=True)))
        elif op is C.BRANCH:
            out.append("(?:" + "|".join(widen(alt, multiline) for alt in av[1]) + ")")
        elif op is C.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if add_flags or del_flags:
                raise Unsupported("inline flags")
            out.append("(?:" + widen(sub, multiline) + ")")
        elif op is C.ATOMIC_GROUP:
            out.append("(?:" + widen(av, multiline) + ")")
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            if hi == 0:
                continue
            if hi <= _MAX_LEAST:
                suffix = f"{{{lo},{hi}}}"
            else:
                least = min(lo, _MAX_LEAST)
                suffix = f"{{{least},}}" if least else "*"
            out.append("(?:" + widen(sub, multiline) + ")" + suffix)
        elif op is C.AT and av is C.AT_BOUNDARY and (_edge(items[i + 1 :], True) or _edge(items[:i], False)):
            # RE2's \b knows only ASCII words; beside a surely-ASCII word character it holds wherever Python's
            # does (the other side is then a non-word character to both).
            out.append("\\b")
        elif op is C.AT and av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING) and not multiline:
            out.append("^")  # the start of the text in both engines (RE2 keeps the whole text as context)
        elif op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue  # an assertion consumes nothing: without it the pattern only matches more
        else:
            raise Unsupported(str(op))  # backreferences and anything newer
    return "".join(out)


def superset(pattern: re.Pattern[str]) -> str:
    """The widened RE2 pattern of a case-sensitive Python pattern, or Unsupported."""
    if pattern.flags & (re.IGNORECASE | re.VERBOSE | re.DOTALL | re.LOCALE):
        raise Unsupported("flags")
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception as e:  # a parser detail of another Python version: no gate
        raise Unsupported(str(e)) from e
    return widen(parsed.data, bool(pattern.flags & re.MULTILINE))


def _first_start(rx: Any, re2: Any) -> Callable[[bytes, int], int]:
    """Where `rx` first matches at or after a position. google-re2's compiled pattern under its Python wrapper
    answers with bare spans and no match object (half the cost a call); the wrapper is the fallback."""
    # Either may be missing in another wrapper version: bare() then raises, and the check below falls back.
    low: Any = getattr(rx, "_regexp", None)
    unanchored = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)

    def wrapped(data: bytes, pos: int) -> int:
        m = rx.search(data, pos)
        return -1 if m is None else int(m.start())

    def bare(data: bytes, pos: int) -> int:
        return int(low.Match(unanchored, data, pos, len(data))[0][0])

    try:
        if all(bare(b"\n" * 3, p) == wrapped(b"\n" * 3, p) for p in range(3)):
            return bare
    except Exception:  # another wrapper version: keep to its public API
        pass
    return wrapped


class Gate:
    """RE2 versions of case-sensitive `patterns` (None: a pattern left to Python). `look(text)` says which may
    match; `finditer` then gives each one's exact Python matches."""

    def __init__(self, patterns: Sequence[re.Pattern[str] | None]) -> None:
        self.size = len(patterns)
        self._patterns = list(patterns)
        self._built = (
            False  # RE2 is compiled at the first look: a run that scans no long text never pays for it
        )
        self._set = None
        # pattern -> where its RE2 superset next matches: (text, pos) -> the start, or -1
        self._one: list[Callable[[bytes, int], int] | None] = [None] * self.size
        self._index: list[int] = []  # set entry -> pattern

    def _build(self) -> None:
        self._built = True
        patterns = self._patterns
        try:
            import re2
        except ImportError:  # google-re2 missing: every pattern may match and runs in Python alone
            return
        opts = re2.Options()
        opts.encoding = re2.Options.Encoding.LATIN1
        # RE2's budget for the Set's DFA states: a collection's texts differ, and below ~64 MB the states thrash
        # (4,000 SKILL.md: 5.2 s at 32 MB, 3.1 s at 128 MB; the process grows ~44 MB either way).
        opts.max_mem = 128 << 20
        opts.log_errors = False
        gate = re2.Set.SearchSet(opts)
        for i, p in enumerate(patterns):
            try:
                if p is None:
                    raise Unsupported("no pattern")
                wide = superset(p).encode("ascii")
                one = re2.compile(wide, opts)
                gate.Add(wide)
            except (Unsupported, re2.error):
                continue
            self._one[i] = _first_start(one, re2)
            self._index.append(i)
        # An entry that matches every text: RE2 answers "no match" when its DFA runs out of memory, and the
        # missing canary tells that apart from a text nothing matches.
        self._canary = gate.Add(b"")
        try:
            gate.Compile()
        except re2.error:
            self._one = [None] * self.size
            return
        self._set = gate

    @property
    def built(self) -> bool:
        """True once RE2 has been compiled (or found missing): a look costs no compile then."""
        return self._built

    @property
    def active(self) -> bool:
        if not self._built:
            self._build()
        return self._set is not None

    def look(self, text: str) -> tuple[bytes | None, list[bool]]:
        """The text as RE2 reads it (None: no RE2), and for each pattern whether it may match."""
        if not shortcuts.on():
            return None, [True] * self.size
        if not self._built:
            self._build()
        if self._set is None:
            return None, [True] * self.size
        data = encode(text)
        hits = self._set.Match(data) or ()
        if self._canary not in hits:
            return None, [True] * self.size
        may = [one is None for one in self._one]
        for j in hits:
            if j != self._canary:
                may[self._index[j]] = True
        return data, may

    def guides(self, i: int, data: bytes | None) -> bool:
        """True when `finditer` of pattern `i` on the text `data` came from is led by RE2."""
        return data is not None and self._one[i] is not None

    def finditer(
        self, i: int, pattern: re.Pattern[str], text: str, data: bytes | None
    ) -> Iterator[re.Match[str]]:
        """`pattern.finditer(text)`, where `pattern` matches what pattern `i` does on `text`: `re` tries only the
        places where the RE2 superset finds a match starting, since none can start anywhere else."""
        one = self._one[i]
        if one is None or data is None:
            yield from pattern.finditer(text)
            return
        pos, n = 0, len(text)
        while pos <= n:
            start = one(data, pos)
            if start < 0:
                return
            m = pattern.match(text, start)
            if m is None:
                pos = start + 1
            elif m.end() == start:
                # An empty match: Python's rule for what may follow one takes over (finditer from here gives
                # this match first, then the same as the whole-text finditer).
                yield from pattern.finditer(text, start)
                return
            else:
                yield m
                pos = m.end()
