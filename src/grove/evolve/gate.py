"""The acceptance gate for an evolved skill, and the declared rule that picks the final one from the front.

Structural checks first (size at most +20% of the original and under the skill size limit, headings intact,
frontmatter byte-identical, strict SKILL.md validation, the skill scan), then the scores: the candidate must dominate
the original, or gain accuracy without being dominated by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grove.evolve.candidate import extra_headings, from_candidate, heading_of
from grove.evolve.pareto import Epsilon, Point, dominates
from grove.skills.frontmatter import MAX_SKILL_MD_CHARS, strict_problems
from grove.skills.guard import scan_skill_text

MAX_GROWTH = 1.20


@dataclass
class GateResult:
    ok: bool
    reasons: list[str] = field(default_factory=list)


def structural_problems(
    name: str,
    head: str,
    original: dict[str, str],
    candidate: dict[str, str],
    *,
    candidate_head: str | None = None,
    max_growth: float = MAX_GROWTH,
) -> list[str]:
    problems: list[str] = []
    before = from_candidate(head, original)
    after = from_candidate(candidate_head if candidate_head is not None else head, candidate)
    if candidate_head is not None and candidate_head != head:
        problems.append("frontmatter changed (it is frozen outside the search)")
    limit = min(int(len(before.encode()) * max_growth), MAX_SKILL_MD_CHARS)
    if len(after.encode()) > limit:
        problems.append(
            f"too long: {len(after.encode())} bytes > {limit} (+{round((max_growth - 1) * 100)}% cap)"
        )
    if set(candidate) != set(original):
        problems.append("sections added or renamed")
    for key, text in candidate.items():
        want = heading_of(key)
        if text and want and not text.startswith(want):
            problems.append(f"section {want!r} lost its heading")
        extra = extra_headings(key, text)
        if extra:
            problems.append(f"section {key[3:]!r} adds headings {extra}")
    problems.extend(strict_problems(after, name))
    scan = scan_skill_text(after)
    if scan.verdict == "dangerous":
        problems.append("refused by the skill scan: " + "; ".join(scan.reasons))
    return problems


def gate(
    name: str,
    head: str,
    original: dict[str, str],
    candidate: dict[str, str],
    base: Point,
    point: Point,
    eps: Epsilon | None = None,
) -> GateResult:
    reasons = structural_problems(name, head, original, candidate)
    e = eps or Epsilon()
    if dominates(base, point, e):
        reasons.append("dominated by the original")
    elif not (dominates(point, base, e) or point.accuracy > base.accuracy + e.accuracy):
        reasons.append("neither dominates the original nor gains accuracy")
    return GateResult(not reasons, reasons)


def choose_final(
    base: Point, passing: list[Point], max_token_ratio: float = 1.1, eps: Epsilon | None = None
) -> Point:
    """Default rule: highest accuracy with tokens <= 1.1x the original and robustness not lower; else the original."""
    e = eps or Epsilon()
    allowed = [
        p
        for p in passing
        if p.tokens <= max_token_ratio * base.tokens and p.robustness >= base.robustness - e.robustness
    ]
    if not allowed:
        return base
    return max(allowed, key=lambda p: (p.accuracy, p.robustness, -p.tokens))
