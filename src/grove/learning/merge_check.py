"""What a merge must keep: every command, code line and rule of the skills it replaces, or say why not.

Deterministic, no model. Commands and code lines must appear verbatim (whitespace aside) in the merged skill;
a rule (a bullet or sentence that says must/never/always/avoid...) must appear nearly word for word (its stemmed
words on one line). Anything missing must be listed in the proposal's `dropped` with a reason, or the merge is
refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grove.lazy_regex import later
from grove.skills.words import terms

FENCE = later(r"^\s*(```|~~~)")
INLINE = later(r"`([^`\n]{2,})`")
RULE = later(
    r"\b(must|never|always|do not|don'?t|avoid|only|required?|make sure|ensure|beware|pitfall|warning|"
    r"careful|instead)\b",
    re.IGNORECASE,
)
ITEM = later(r"^\s*(?:[-*+]|\d+[.)])\s+")
RULE_COVERAGE = 0.8


@dataclass(frozen=True)
class Essential:
    kind: str  # command | code | rule
    text: str


@dataclass
class MergeCheck:
    missing: list[Essential] = field(default_factory=list)  # dropped without a reason: the merge is refused
    excused: list[tuple[Essential, str]] = field(default_factory=list)  # dropped, with the model's reason

    @property
    def ok(self) -> bool:
        return not self.missing

    def describe(self, limit: int = 5) -> str:
        shown = "; ".join(f"{e.kind} {e.text!r}" for e in self.missing[:limit])
        more = f" (+{len(self.missing) - limit} more)" if len(self.missing) > limit else ""
        return f"drops {len(self.missing)} item(s) of the originals without a reason: {shown}{more}"


def _body(text: str) -> str:
    from grove.skills.frontmatter import SkillFormatError, split_frontmatter

    try:
        return split_frontmatter(text)[1]
    except SkillFormatError:
        return text


def _norm(text: str) -> str:
    return " ".join(text.split())


def essentials(skill_md: str) -> list[Essential]:
    """The commands, code lines and rules of one SKILL.md, in order, without repeats."""
    found: list[Essential] = []
    in_code = False
    for raw in _body(skill_md).splitlines():
        line = raw.strip()
        if FENCE.match(raw):
            in_code = not in_code
            continue
        if not line:
            continue
        if in_code:
            if not line.startswith("#") or line.startswith("#!"):
                found.append(Essential("code", line))
            continue
        if line.startswith("$ "):
            found.append(Essential("command", line[2:].strip()))
            continue
        found += [Essential("command", m.group(1).strip()) for m in INLINE.finditer(line)]
        if RULE.search(line) and (ITEM.match(raw) or len(terms(line)) >= 3):
            found.append(Essential("rule", ITEM.sub("", line)))
    unique: dict[tuple[str, str], Essential] = {}
    for e in found:
        unique.setdefault((e.kind, _norm(e.text)), e)
    return list(unique.values())


def _rule_kept(rule: str, lines: list[set[str]]) -> bool:
    words = set(terms(rule))
    if not words:
        return True
    return any(len(words & line) >= RULE_COVERAGE * len(words) for line in lines)


def kept(item: Essential, merged: str, merged_lines: list[set[str]] | None = None) -> bool:
    if item.kind == "rule":
        return _rule_kept(item.text, merged_lines or [set(terms(x)) for x in merged.splitlines()])
    return _norm(item.text) in _norm(merged)


def check_merge(
    originals: list[str], merged: str, dropped: list[tuple[str, str]] | None = None
) -> MergeCheck:
    """Every essential of the originals is in `merged`, or listed in `dropped` as (item, reason) with a reason."""
    reasons = [(_norm(item), why.strip()) for item, why in (dropped or []) if why and why.strip()]
    lines = [set(terms(x)) for x in merged.splitlines()]
    check = MergeCheck()
    seen: set[tuple[str, str]] = set()
    for text in originals:
        for e in essentials(text):
            key = (e.kind, _norm(e.text))
            if key in seen or kept(e, merged, lines):
                seen.add(key)
                continue
            seen.add(key)
            why = next((w for item, w in reasons if item and (item in key[1] or key[1] in item)), None)
            if why:
                check.excused.append((e, why))
            else:
                check.missing.append(e)
    return check
