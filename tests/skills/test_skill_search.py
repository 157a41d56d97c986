"""Ranked search: BM25F over names, descriptions and bodies, stemming, synonyms, relevance hints."""

from __future__ import annotations

from pathlib import Path

from skillkit import skill_text, write_skill

from grove.config import Settings
from grove.skills.search import SkillSearchIndex, relevant_skills, search_skills
from grove.skills.skill import load_skill
from grove.skills.words import stem, terms


def _lib(root: Path) -> list:
    specs = {
        "docker-debug": ("Diagnose docker containers that crash or restart.", "Run docker logs and inspect."),
        "plot-charts": ("Make charts with matplotlib for reports.", "Use fig, ax = plt.subplots()."),
        "postgres-backup": ("Back up and restore PostgreSQL databases.", "pg_dump -Fc; pg_restore."),
    }
    for name, (desc, body) in specs.items():
        write_skill(root, name, skill_text(name, desc, body))
    return [load_skill(root / n, "home") for n in specs]


def test_stemming_joins_word_forms() -> None:
    assert stem("deploying") == stem("deployed") == stem("deploys") == stem("deploy")
    assert terms("The charts and the Graphs!") == ["chart", "graph"]


def test_ranks_the_matching_skill_first(tmp_path: Path) -> None:
    idx = SkillSearchIndex(_lib(tmp_path))
    assert idx.search("my container keeps restarting")[0].name == "docker-debug"
    assert idx.search("restore the database from last night's dump")[0].name == "postgres-backup"


def test_synonyms_bridge_paraphrases(tmp_path: Path) -> None:
    idx = SkillSearchIndex(_lib(tmp_path))
    hits = idx.search("draw a graph of signups")
    assert hits and hits[0].name == "plot-charts"


def test_no_match_and_empty_query(tmp_path: Path) -> None:
    idx = SkillSearchIndex(_lib(tmp_path))
    assert idx.search("quantum entanglement") == []
    assert idx.search("the and of") == []


def test_search_and_relevance_hint_over_the_library(settings: Settings, skills_root: Path) -> None:
    _lib(skills_root)
    assert search_skills(settings, None, "pg_dump restore")[0].name == "postgres-backup"
    assert relevant_skills(settings, None, "restore the postgres database backup", k=2) == ["postgres-backup"]
    assert relevant_skills(settings, None, "hello there", k=2) == []
