"""A state an answer gives as the consequence of a claim in the same sentence ("Rebased onto main; the history is
linear now", "I ran it, so the db now has 50 users") stands or falls with it: both marked, they are one mark."""

from __future__ import annotations

import re

from grove.claims import mood as md
from grove.claims.types import Claim, Label, Verdict
from grove.lazy_regex import later

_SENTENCE_BREAK = later(r"[.!?](\s|$)|\n")
CONSEQUENT = frozenset({md.NOW, md.HEDGED, md.ANCHORED, md.HAPPENED, md.EVALUATED, md.STATE})
RANK = {"supported": 0, "unverifiable": 1, "contradicted": 2}


def joined(answer: str, verdicts: list[Verdict]) -> list[Verdict]:
    """The verdicts with each marked consequent state folded into the marked claim before it in its sentence."""
    out: list[Verdict] = []
    for v in verdicts:
        first = out[-1] if out else None
        if first is None or not (first.marked and v.marked) or v.claim.mood not in CONSEQUENT:
            out.append(v)
            continue
        between = answer[first.claim.end : v.claim.start]
        if v.claim.start < first.claim.end or _SENTENCE_BREAK.search(between):
            out.append(v)
            continue
        a, b = first.claim, v.claim
        label: Label = first.label if RANK[first.label] >= RANK[v.label] else v.label
        claim = Claim(a.kind, f"{a.text} … {b.text}", a.start, b.end, a.target, a.numbers + b.numbers, a.mood)
        reason = first.reason if label == first.label else v.reason
        out[-1] = Verdict(claim, label, re.sub(r"\s+", " ", reason))
    return out
