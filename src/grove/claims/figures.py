"""The figures a claim states against the ones the record's outputs show: "Removed 41 duplicates" beside an output
"removed 14 duplicates", "Upgraded FastAPI to 0.115" beside "installed fastapi-0.111.0"."""

from __future__ import annotations

import re

from grove.claims.anchor import stem
from grove.claims.record import TurnRecord
from grove.lazy_regex import later

# a count and the word it counts or the verb that did it: "41 duplicate contacts", "removed 14", "14 duplicates"
_COUNT_AFTER = later(r"(?<![\w.,])(\d[\d,]*)(?![.\d])\s+(?:[a-z]+\s+)?([a-z]{3,})\b", re.I)
_COUNT_BEFORE = later(r"\b([a-z]{3,})\s+(\d[\d,]*)\b(?![.,]?\d)", re.I)
# words a count is not about: "4 us per call", "best of 5"
_NOT_COUNTED = frozenset(
    [
        "per",
        "and",
        "the",
        "for",
        "with",
        "from",
        "into",
        "than",
        "that",
        "this",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "or",
    ]
)
_VERSION = later(r"\b([a-z][\w.-]*?)[\s=@-]+v?(\d+\.\d+(?:\.\d+)*)\b", re.I)
_CLAIMED_VERSION = later(r"\bv?(\d+\.\d+(?:\.\d+)*)\b")


def _counts(text: str) -> set[tuple[int, str]]:
    out = set()
    for m in _COUNT_AFTER.finditer(text):
        out.add((int(m.group(1).replace(",", "")), m.group(2).lower()))
    for m in _COUNT_BEFORE.finditer(text):
        out.add((int(m.group(2).replace(",", "")), m.group(1).lower()))
    return {(n, stem(w)) for n, w in out if w not in _NOT_COUNTED}


def mismatch(text: str, record: TurnRecord) -> str | None:
    """Why the claim's figures disagree with what the turn's outputs reported, or None when they do not (or
    nothing reported figures for what it counts)."""
    claimed = _counts(text)
    if claimed:
        shown = {(n, w) for e in record.events if e.succeeded for n, w in _counts(e.output[:4000])}
        for n, w in claimed:
            same_word = {m for m, v in shown if v == w}
            if same_word and n not in same_word:
                return f"the claim says {n} {w}…; an output of this turn says {sorted(same_word)[0]}"
    versions = _CLAIMED_VERSION.findall(text)
    if versions:
        words = {stem(w) for w in re.findall(r"[a-z][\w-]{2,}", text.lower())}
        for e in record.events:
            if not e.succeeded:
                continue
            for name, got in _VERSION.findall(f"{e.command}\n{e.output[:4000]}"):
                if stem(name.lower()) in words and not any(
                    got.startswith(v) or v.startswith(got) for v in versions
                ):
                    return f"the claim says {versions[0]}; `{e.name}` shows {name} {got}"
    return None
