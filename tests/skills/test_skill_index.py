"""The level-0 index: empty when no skills, byte-stable, within its token budget, folded for large libraries."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillkit import skill_text, write_skill

from grove.config import Settings
from grove.skills.index import estimate_tokens, render_index, skills_index_text, token_budget
from grove.skills.skill import Skill, load_skill


def _many(n: int, categories: int) -> list[Skill]:
    return [
        Skill(
            name=f"skill-{i:04d}",
            description=f"Handles task family number {i} for the tests. Use when family {i} comes up.",
            path=Path(f"/nowhere/skill-{i:04d}"),
            source="home",
            frontmatter={},
            body_text="",
            category=f"cat-{i % categories}",
        )
        for i in range(n)
    ]


def test_no_skills_no_index(settings: Settings, home: Path) -> None:
    assert skills_index_text(settings, home) == ""


def test_index_is_byte_stable_whatever_the_creation_order(settings: Settings, skills_root: Path) -> None:
    for name in ("zeta", "alpha", "mid"):
        write_skill(skills_root, name)
    first = skills_index_text(settings, skills_root)
    shutil.rmtree(skills_root)
    skills_root.mkdir()
    for name in ("mid", "zeta", "alpha"):
        write_skill(skills_root, name)
    assert skills_index_text(settings, skills_root) == first
    assert first.index("alpha") < first.index("mid") < first.index("zeta")
    assert "skill_view" in first and "skills_search" in first


def test_small_library_shows_descriptions(settings: Settings, skills_root: Path) -> None:
    write_skill(
        skills_root, "pdf-forms", skill_text("pdf-forms", "Fill PDF forms. Use when a PDF has fields.")
    )
    text = skills_index_text(settings, skills_root)
    assert "- pdf-forms: Fill PDF forms" in text


def test_large_library_folds_categories_within_budget() -> None:
    skills = _many(1000, 25)
    text = render_index(skills)
    assert estimate_tokens(text) <= token_budget(1000)
    assert "cat-0 (40):" in text and "more" in text
    assert text.count("skill-") < 1000


def test_budget_grows_sublinearly() -> None:
    assert token_budget(50) <= 630
    assert token_budget(200) < 4 * token_budget(50)
    assert token_budget(1000) <= 2500


def test_pinned_skills_come_first_in_their_category(tmp_path: Path) -> None:
    write_skill(tmp_path, "aaa")
    pinned = skill_text("zzz").replace("---\n\n", "metadata:\n  grove.pinned: 'true'\n---\n\n", 1)
    write_skill(tmp_path, "zzz", pinned)
    text = render_index([load_skill(tmp_path / n, "home") for n in ("aaa", "zzz")])
    assert text.index("zzz") < text.index("aaa")


def test_stale_skills_are_left_out_of_the_index(settings: Settings, skills_root: Path) -> None:
    write_skill(skills_root, "fresh-one")
    write_skill(skills_root, "old-one")
    (skills_root / ".curator.json").write_text('{"stale": {"old-one": 1.0}}')
    text = skills_index_text(settings, skills_root)
    assert "fresh-one" in text and "old-one" not in text
