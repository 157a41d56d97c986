"""A model summary checked against the ledger: facts it already states verbatim are not repeated, facts it left
out are added from the ledger, and values it states differently from the messages are flagged."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grove.context.skeleton import Skeleton


def normalise(text: str) -> str:
    return " ".join(text.replace("`", "").replace("**", "").lower().split())


@dataclass
class SummaryCheck:
    summary: str
    conflicts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._text = normalise(self.summary)
        self._lines = [normalise(ln) for ln in self.summary.splitlines() if ln.strip()]

    def present(self, item: str) -> bool:
        """The summary states `item` verbatim (whitespace, case and markdown aside)."""
        wanted = normalise(item)
        return bool(wanted) and wanted in self._text


def check_summary(summary: str, skeleton: Skeleton, limit: int = 20) -> SummaryCheck:
    """Which ledger values the summary contradicts: a subject on a summary line with a value that no source
    ever had for it (one line per subject, at most `limit`)."""
    result = SummaryCheck(summary)
    by_subject: dict[str, list[dict]] = {}
    for v in skeleton.ledger.values:
        subject = str(v["subject"]).split(".")[-1]
        if len(subject) >= 4 and _value_of(str(v["text"])):
            by_subject.setdefault(subject, []).append(v)
    for subject, entries in by_subject.items():
        known = {_value_of(str(e["text"])).lower() for e in entries}
        known |= {_value_of(str(w)).lower() for e in entries for w in e.get("was", [])}
        pattern = re.compile(
            rf"\b{re.escape(subject.lower())}\b\s*(?:[:=]|is|was|to)\s*[\"'`]?([^\s,;\"'`]+)"
        )
        said = next((m.group(1).rstrip(".") for ln in result._lines if (m := pattern.search(ln))), None)
        if said is None or said in known:
            continue
        where = "; ".join(f"{e['source']}: `{e['text']}`" for e in entries[-3:])
        result.conflicts.append(f"{subject}: the summary says {said!r}; the messages say {where}")
        if len(result.conflicts) >= limit:
            break
    return result


def _value_of(text: str) -> str:
    m = re.search(r"(?::=|=|:)\s*(.+?)\s*(?:#.*)?$", text)
    value = m.group(1).strip().strip(",;").strip("\"'") if m else ""
    return value.split()[0] if value else ""


def completed(summary: str, skeleton: Skeleton, budget_tokens: int) -> tuple[str, str]:
    """(the summary with its conflicts noted, the facts it misses) for the compressed message."""
    check = check_summary(summary, skeleton)
    body = summary
    if check.conflicts:
        body += "\n\n## Corrections (the messages say otherwise; trust these)\n" + "\n".join(
            f"- {c}" for c in check.conflicts
        )
    facts = skeleton.render(budget_tokens, present=check.present)
    facts = facts.replace(
        "## Facts recorded by grove (exact, from the messages)",
        "## Facts recorded by grove (exact, from the messages; those the summary states verbatim are not repeated)",
        1,
    )
    return body, facts
