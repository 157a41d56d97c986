"""Whether the record makes a clause a claim about this turn's work at all: a description of a file the turn only
read, a state no call checked, an assessment of code read, history a look found are not; everything else is."""

from __future__ import annotations

import re

from grove.claims import mood as md
from grove.claims.anchor import inspects, observes, tools_named
from grove.claims.check import checks_of, made, related_calls
from grove.claims.patterns import FILE_NOUN
from grove.claims.record import TurnRecord, norm_path
from grove.claims.types import ACT_KINDS, FILE_KINDS, Claim
from grove.lazy_regex import later

# taking in what the user gave in the conversation ("I read your note", "I looked at the photo you sent"): the
# turn's input, not tool work, so no record can speak to it
_USERS_OWN = later(
    r"\b(?:read|saw|seen|looked\s+at|viewed|went\s+through|received|got|understood|noted)\s+"
    r"(?:your\s+(?:\w+\s+){0,2}?\w+|the\s+(?:\w+\s+){0,2}?\w+\s+(?:you|you've|you\s+have)\s+"
    r"(?:sent|shared|gave|given|attached|posted|written|wrote|pasted|uploaded))",
    re.IGNORECASE,
)


def applies(claim: Claim, record: TurnRecord) -> bool:
    """Whether the clause is a claim about this turn's work, given what the record shows the turn did."""
    target = claim.target
    if not target and claim.kind in ("act", "read") and _USERS_OWN.search(claim.text):
        return bool(FILE_NOUN.search(claim.text))  # "your config file" is still a file a tool reads
    if claim.mood == md.DESCRIBED and claim.kind in FILE_KINDS and target:
        # "useAuth is defined in web/hooks.ts" after reading it; a file never touched is a claim (and false)
        worked = record.changed(target) or any(e.mentions(target) for e in record.commands)
        return worked or not record.looked_at(target)
    if claim.mood == md.ANCHORED:
        # a file it names and the turn wrote, a tool it names as the reporter, or a check of what it names;
        # "It keeps the last 7 archives" of a script nothing ran describes the work, nothing checks it
        named = bool(target and norm_path(target) in claim.text and record.changed(target))
        return bool(checks_of(claim, record)) or named or bool(tools_named(claim.text))
    if (
        claim.mood == md.HAPPENED
    ):  # "it removed 5 temp dirs": a run of it, or a file the turn made and never ran
        return bool(checks_of(claim, record)) or bool(made(claim, record)) or bool(tools_named(claim.text))
    looked_only = bool(record.events) and all(inspects(e) for e in record.events)
    if claim.kind == "outcome" and claim.mood in (md.STATE, md.EVALUATED) and looked_only:
        return False  # "The code is clean overall" after reading it: an assessment, not work done
    if md.passive_past(claim.text) and claim.kind in ACT_KINDS:
        calls = related_calls(claim, record)
        return not (calls and all(observes(e) for e in calls))  # history a look found, not the turn's work
    return True
