"""The scoring skill search shares: BM25F over a skill's fields, query expansion, and the hit it returns."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

# Field weights: a word in the name or description says far more about what a skill is for than one in the body.
FIELD_WEIGHTS = {"name": 3.0, "description": 2.0, "category": 0.5, "headings": 0.6, "body": 0.6}
K1 = 1.2
B = 0.75
SYNONYM_WEIGHT = 0.5  # an expanded word counts half as much as one the user wrote


def expand(query_terms: list[str]) -> dict[str, float]:
    """Query words at weight 1, their synonyms at SYNONYM_WEIGHT."""
    from grove.skills.synonyms import expansion_map

    synonyms = expansion_map()
    weights = dict.fromkeys(query_terms, 1.0)
    for t in query_terms:
        for syn in synonyms.get(t, ()):
            weights.setdefault(syn, SYNONYM_WEIGHT)
    return weights


def bm25f(
    doc: dict[str, Counter[str]],
    lengths: dict[str, int],
    query_terms: dict[str, float],
    idf: dict[str, float],
    avg_len: dict[str, float],
) -> float:
    """Per-field length-normalised term frequencies, weighted and summed, then one saturation and IDF per term."""
    total = 0.0
    for t, q_weight in query_terms.items():
        term_idf = idf.get(t)
        if term_idf is None:
            continue
        weighted = 0.0
        for f, w in FIELD_WEIGHTS.items():
            tf = doc[f].get(t, 0)
            if tf:
                weighted += w * tf / (1 - B + B * lengths.get(f, 0) / avg_len[f])
        total += q_weight * term_idf * weighted / (K1 + weighted)
    return total


def idf_of(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


@dataclass
class SearchHit:
    name: str
    score: float
    description: str
    category: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
