"""Issue 33: grove's one skill validator (import, install, create and `skills validate`) agrees with the Agent
Skills reference validator (skills-ref) on each case where they differed: duplicate keys, Unicode names,
non-string metadata values, a list for allowed-tools. The one deliberate difference, other agents' top-level
fields kept, is in the README."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.skills.frontmatter import strict_problems

skills_ref = pytest.importorskip(
    "skills_ref", reason="the reference validator is in the dev extra (skills-ref)"
)

CASES = {
    "plain": ("pdf-forms", "name: pdf-forms\ndescription: Fill PDF forms.\n"),
    "duplicate-keys": ("dup", "name: dup\ndescription: One.\ndescription: Two.\n"),
    "unicode-name": ("résumé-writer", "name: résumé-writer\ndescription: Write a résumé.\n"),
    "unicode-upper": ("Résumé", "name: Résumé\ndescription: Write a résumé.\n"),
    "metadata-scalars": ("meta", "name: meta\ndescription: M.\nmetadata:\n  version: 2\n  beta: true\n"),
    "allowed-tools-list": (
        "tools",
        "name: tools\ndescription: T.\nallowed-tools:\n  - Read\n  - Bash(git:*)\n",
    ),
    "double-hyphen": ("a--b", "name: a--b\ndescription: D.\n"),
    "folder-mismatch": ("other", "name: mine\ndescription: D.\n"),
    "no-description": ("nodesc", "name: nodesc\n"),
    "long-compat": ("compat", "name: compat\ndescription: C.\ncompatibility: " + "x" * 501 + "\n"),
}


def _skill(tmp_path: Path, folder: str, frontmatter: str) -> tuple[Path, str]:
    where = tmp_path / folder
    where.mkdir()
    text = f"---\n{frontmatter}---\n# Body\n"
    (where / "SKILL.md").write_text(text, encoding="utf-8")
    return where, text


@pytest.mark.parametrize("case", sorted(CASES))
def test_grove_and_the_reference_validator_agree(tmp_path: Path, case: str) -> None:
    folder, frontmatter = CASES[case]
    where, text = _skill(tmp_path, folder, frontmatter)
    reference_valid = not skills_ref.validate(where)
    grove_problems = strict_problems(text, folder)
    assert (not grove_problems) == reference_valid, (grove_problems, skills_ref.validate(where))


def test_the_deliberate_difference_other_agents_fields_are_kept(tmp_path: Path) -> None:
    where, text = _skill(tmp_path, "claude", "name: claude\ndescription: C.\nmodel: opus\n")
    assert skills_ref.validate(where)  # the reference refuses fields outside the standard
    assert strict_problems(text, "claude") == []  # grove keeps Claude Code's and Hermes Agent's (README)
