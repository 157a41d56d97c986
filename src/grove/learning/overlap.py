"""Lexical overlap between skills (no model): cosine similarity of stemmed terms, name and description weighted up.

Used by the reviewer (a `create` that duplicates an existing skill is refused) and by the curator (clusters of
overlapping skills are candidates for one umbrella skill).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from grove.skills.skill import Skill
from grove.skills.words import terms

HEAD_WEIGHT = 3  # a shared word in the name or description says more than one in the body


@dataclass(frozen=True)
class Similar:
    name: str
    score: float


def text_vector(name: str, description: str, body: str) -> Counter[str]:
    vec: Counter[str] = Counter(terms(body))
    for t in terms(name.replace("-", " ") + " " + description):
        vec[t] += HEAD_WEIGHT
    return vec


def skill_vector(skill: Skill) -> Counter[str]:
    return text_vector(skill.name, skill.description, skill.body)


def skill_md_vector(text: str, name: str = "") -> Counter[str]:
    """The vector of a SKILL.md not written yet (lenient: unparseable frontmatter counts as body)."""
    from grove.skills.frontmatter import SkillFormatError, parse_skill_md

    try:
        parsed = parse_skill_md(text, name or None)
    except SkillFormatError:
        return text_vector(name, "", text)
    fm = parsed.frontmatter
    return text_vector(str(fm.get("name") or name), str(fm.get("description") or ""), parsed.body)


def cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def most_similar(vec: Counter[str], skills: list[Skill], limit: int = 3) -> list[Similar]:
    scored = [Similar(s.name, round(cosine(vec, skill_vector(s)), 3)) for s in skills]
    return sorted((s for s in scored if s.score > 0), key=lambda s: (-s.score, s.name))[:limit]


def overlapping_pairs(skills: list[Skill], threshold: float) -> list[tuple[str, str, float]]:
    vectors = {s.name: skill_vector(s) for s in skills}
    names = sorted(vectors)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            score = cosine(vectors[a], vectors[b])
            if score >= threshold:
                pairs.append((a, b, round(score, 3)))
    return sorted(pairs, key=lambda p: (-p[2], p[0], p[1]))


def clusters(pairs: list[tuple[str, str, float]]) -> list[list[str]]:
    """Connected groups of overlapping skills, each sorted, largest first."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _ in pairs:
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(root(name), []).append(name)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))
