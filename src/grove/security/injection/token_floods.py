"""Token floods: a short unit repeated 30+ times in a row, found where they start (flood_starts) before the flood
pattern is tried there."""

from __future__ import annotations

import re
from collections.abc import Iterator

from grove.security.fast import shortcuts

_FLOOD = re.compile(r"(.{1,8}?)\1{29,}", re.S)
_SEPARATORS = set("-=_*#~|+.,:;0123456789 \t\n")
_NONZERO = re.compile(b"[^\0]")
# Unit sizes 1-8 read through three wider distances first: period L repeats with period M (a multiple of L) too, so a
# flood of L (30*L characters) shows as 30*L - M equal characters at distance M. (M, the sizes it stands for.)
_COVERS = ((8, (1, 2, 4, 8)), (6, (3, 6)), (35, (5, 7)))


def _equal_runs(whole: int, size: int, width: int, lo: int, count: int, least: int) -> list[tuple[int, int]]:
    """Maximal runs [first, stop) of positions i in [lo, lo + count) with text[i] == text[i + size], `least` long
    or more; `whole` is the little-endian integer of the text's characters from lo to lo + count + size, `width`
    bytes each. The text's bytes XORed with themselves `size` characters on are zero along a run (big-integer
    shifts and a bytes search: C speed)."""
    shift = width * size
    span = count * width  # the diff's bytes; those past it are the text's own and never read
    diff = ((whole >> (8 * shift)) ^ whole).to_bytes(span + shift, "little")
    zeros = b"\0" * (least * width)
    runs: list[tuple[int, int]] = []
    at = diff.find(zeros, 0, span)  # memmem: runs are rare, and each is walked to its end once
    while at >= 0:
        tail = _NONZERO.search(diff, at + len(zeros), span)
        end = tail.start() if tail else span
        first, stop = -(-at // width), end // width  # whole characters only
        if stop - first >= least:
            runs.append((lo + first, lo + stop))
        at = diff.find(zeros, end, span)
    return runs


def flood_starts(text: str) -> list[tuple[int, int]]:
    """The places a _FLOOD match starts, as sorted ranges [a, b): a unit of L characters 30 times in a row from p is
    text[i] == text[i + L] for every i in [p, p + 29*L), and a run of c such positions holds a start at each of its
    first c - 29*L + 1 places. Runs at distance L are looked for only inside the runs at a covering distance M
    (_COVERS): a run [a, b) at L makes one [a, b + L - M) at M, so it lies in [s, e + M - L) of the run [s, e) at M
    that holds that, and a piece of any other run cut off by those limits is shorter than M < 29*L."""
    n = len(text)
    if n < 30:
        return []
    if text.isascii():
        data, width = text.encode("ascii"), 1
    else:
        data, width = text.encode("utf-32-le", "surrogatepass"), 4
    whole = int.from_bytes(data, "little")
    ranges: list[tuple[int, int]] = []
    for cover, sizes in _COVERS:
        sizes = tuple(size for size in sizes if n >= 30 * size)  # a flood of L is 30*L characters
        if not sizes:
            continue
        least = min(30 * size - cover for size in sizes)
        for s, e in _equal_runs(whole, cover, width, 0, n - cover, least):
            for size in sizes:
                need = 29 * size
                stop = min(e + cover - size, n - size)
                part = int.from_bytes(data[s * width : (stop + size) * width], "little")
                for first, last in _equal_runs(part, size, width, s, stop - s, need):
                    ranges.append((first, last - need + 1))
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for a, b in ranges:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _floods(text: str) -> Iterator[re.Match[str]]:
    """`_FLOOD.finditer(text)`, trying the pattern only where a match starts (it tries eight unit lengths at every
    position otherwise)."""
    if not shortcuts.on():
        yield from _FLOOD.finditer(text)
        return
    pos = 0
    for a, b in flood_starts(text):
        p = max(a, pos)
        while p < b:
            m = _FLOOD.match(text, p)
            if m is None:  # cannot happen (p is a start); kept exact anyway
                p += 1
                continue
            yield m
            pos = p = m.end()


def token_flood(text: str) -> str | None:
    """A short unit repeated 30+ times in a row (`ö ö ö ...`, `)]})]}...`): padding meant to push earlier
    instructions out of a model's attention. Separator lines and numeric arrays do not count."""
    for m in _floods(text):
        unit = m.group(1)
        if len(unit.strip()) > 1 or (unit.strip() and len(unit) > 1):
            pass
        else:
            continue  # one character repeated ("aaaa", "────") is a line or a blob, not token padding
        if not set(unit) <= _SEPARATORS and len(set(unit.strip())) <= 6:
            return f"{unit.strip()!r} repeated {len(m.group(0)) // len(unit)} times"
    return None
