"""Ranked lexical search over skills (BM25F over name, description, category, headings and body), and hints.

With a state.db, candidates come from the FTS5 index the catalog keeps (grove.skills.catalog) and only those are
scored, so a search over 10,000 skills reads a few dozen rows; without one, an in-memory index scores them all.
Both score with the same BM25F, so they rank alike.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from grove.skills.catalog import search_fields
from grove.skills.ranking import FIELD_WEIGHTS, SearchHit, bm25f, expand, idf_of
from grove.skills.search_fts import fts_search, library_view
from grove.skills.skill import Skill
from grove.skills.words import terms


class SkillSearchIndex:
    """BM25F: per-field length-normalised term frequencies, weighted, then one saturation and IDF per term."""

    def __init__(self, skills: list[Skill]) -> None:
        self.skills = sorted(skills, key=lambda s: s.name)
        self.fields: list[dict[str, Counter[str]]] = []
        self.lengths: list[dict[str, int]] = []
        lengths: dict[str, float] = {f: 0.0 for f in FIELD_WEIGHTS}
        df: Counter[str] = Counter()
        for s in self.skills:
            doc = {f: Counter(text.split()) for f, text in search_fields(s).items()}
            self.fields.append(doc)
            self.lengths.append({f: sum(counts.values()) for f, counts in doc.items()})
            for f in doc:
                lengths[f] += self.lengths[-1][f]
            df.update(set().union(*(set(c) for c in doc.values())))
        n = max(len(self.skills), 1)
        self.avg_len = {f: (lengths[f] / n) or 1.0 for f in FIELD_WEIGHTS}
        self.idf = {t: idf_of(n, d) for t, d in df.items()}

    def score(self, i: int, query_terms: dict[str, float]) -> float:
        return bm25f(self.fields[i], self.lengths[i], query_terms, self.idf, self.avg_len)

    def search(self, query: str, limit: int = 5) -> list[SearchHit]:
        q = expand(terms(query))
        if not q:
            return []
        scored = [(self.score(i, q), s) for i, s in enumerate(self.skills)]
        ranked = sorted((x for x in scored if x[0] > 0), key=lambda x: (-x[0], x[1].name))
        return [SearchHit(s.name, round(sc, 4), s.description, s.category) for sc, s in ranked[:limit]]


_last_index: tuple[tuple[int, ...], SkillSearchIndex] | None = None


def index_for(skills: list[Skill]) -> SkillSearchIndex:
    """The search index of `skills`, rebuilt only when a skill changed (load_skill returns cached objects)."""
    global _last_index
    key = tuple(sorted(id(s) for s in skills))
    if _last_index is None or _last_index[0] != key:
        _last_index = (key, SkillSearchIndex(skills))
    return _last_index[1]


def search_skills(settings: Any, workspace: Path | None, query: str, limit: int = 5) -> list[SearchHit]:
    from grove.skills.catalog import database

    lib = library_view(settings, workspace)
    db = database(settings)
    if db is not None:
        hits = fts_search(db, lib, query, limit)
        if hits is not None:
            return hits
    return index_for(list(lib.skills.values())).search(query, limit)


def relevant_skills(
    settings: Any, workspace: Path | None, text: str, k: int = 2, min_score: float = 2.5
) -> list[str]:
    """Names of up to `k` skills that look relevant to `text`, for a hint on the user message (never the prompt).

    Only clear matches count: a weak score on a common word is noise that would cost the model a call.
    """
    return [h.name for h in search_skills(settings, workspace, text, limit=k) if h.score >= min_score]
