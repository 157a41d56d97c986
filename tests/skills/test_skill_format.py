"""Naming and size rules (strict), and lenient reading of messy real-world SKILL.md files."""

from __future__ import annotations

import pytest
from skillkit import skill_text

from grove.skills.frontmatter import (
    SkillFormatError,
    parse_skill_md,
    render_skill_md,
    strict_problems,
    validate_skill_md,
)


@pytest.mark.parametrize("name", ["a", "pdf", "pdf-forms", "x1-y2-z3", "a" * 64])
def test_valid_names(name: str) -> None:
    assert strict_problems(skill_text(name), name) == []


@pytest.mark.parametrize(
    "name", ["PDF", "pdf_forms", "-pdf", "pdf-", "pdf--forms", "pdf.forms", "a" * 65, "pdf forms", "Pdé"]
)
def test_invalid_names_are_refused_with_a_reason(name: str) -> None:
    problems = strict_problems(skill_text(name), name)
    assert problems and any("'name'" in p for p in problems)


def test_name_must_equal_folder() -> None:
    problems = strict_problems(skill_text("pdf-forms"), "pdf")
    assert any("differs from its folder name" in p for p in problems)


def test_description_limits() -> None:
    assert strict_problems(skill_text("s", "x" * 1024), "s") == []
    assert any("1025 characters" in p for p in strict_problems(skill_text("s", "x" * 1025), "s"))
    assert any("'description' is required" in p for p in strict_problems("---\nname: s\n---\nbody", "s"))


def test_optional_field_rules() -> None:
    base = "---\nname: s\ndescription: d\n{extra}---\nbody\n"
    assert strict_problems(base.format(extra=f"compatibility: {'c' * 500}\n"), "s") == []
    assert strict_problems(base.format(extra=f"compatibility: {'c' * 501}\n"), "s")
    # a scalar is read as its text, as the reference validator reads it (issue 33); a mapping is not a value
    assert strict_problems(base.format(extra="metadata:\n  grove.pinned: true\n"), "s") == []
    assert strict_problems(base.format(extra="metadata:\n  grove.pinned:\n    a: b\n"), "s")
    assert strict_problems(base.format(extra="metadata:\n  grove.pinned: 'true'\n"), "s") == []
    assert strict_problems(base.format(extra="allowed-tools: [Read, Bash]\n"), "s") == []  # a list of tools
    assert strict_problems(base.format(extra="allowed-tools: {a: b}\n"), "s")
    assert strict_problems(base.format(extra="allowed-tools: Read Bash\nlicense: MIT\n"), "s") == []


def test_skill_md_size_limit() -> None:
    with pytest.raises(SkillFormatError, match="100000"):
        validate_skill_md(skill_text("s", body="x" * 100_001), "s")


def test_validate_lists_every_problem() -> None:
    with pytest.raises(SkillFormatError) as e:
        validate_skill_md("---\nname: Bad_Name\ndescription: ''\n---\n", "Bad_Name")
    assert "'name'" in str(e.value) and "'description'" in str(e.value)


def test_lenient_read_retries_unquoted_colons() -> None:
    text = "---\nname: deploy\ndescription: Deploys the app. Use when: the user says ship it\n---\nbody"
    parsed = parse_skill_md(text, "deploy")
    assert parsed.frontmatter["description"] == "Deploys the app. Use when: the user says ship it"
    assert any("unquoted" in w for w in parsed.warnings)


def test_lenient_read_keeps_unknown_keys_and_warns_on_mismatch() -> None:
    text = (
        "\ufeff\n---\nname: other-name\ndescription: d\nversion: 1.2.0\nplatforms: [linux]\n"
        "metadata:\n  hermes:\n    tags: [a, b]\n---\nbody\n"
    )
    parsed = parse_skill_md(text, "folder-name")
    assert parsed.frontmatter["version"] == "1.2.0"
    assert parsed.extra_keys == ["version", "platforms"]
    assert any("differs from its folder name" in w for w in parsed.warnings)
    assert any("'metadata' values must be strings" in w for w in parsed.warnings)
    assert parsed.body == "body\n"


def test_lenient_read_uses_folder_name_when_name_missing() -> None:
    parsed = parse_skill_md("---\ndescription: d\n---\n", "from-folder")
    assert parsed.frontmatter["name"] == "from-folder"
    assert parsed.warnings


def test_overlong_description_warns_but_loads() -> None:
    parsed = parse_skill_md(skill_text("s", "y" * 2000), "s")
    assert len(parsed.frontmatter["description"]) == 2000
    assert any("2000 characters" in w for w in parsed.warnings)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no frontmatter at all", "must start with a '---'"),
        ("---\nname: s\ndescription: d\n", "never closed"),
        ("---\nname: s\n---\nbody", "no 'description'"),
        ("---\nname: [unclosed\ndescription: d\n---\n", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "must be a YAML mapping"),
    ],
)
def test_unloadable_files_give_a_reason(text: str, reason: str) -> None:
    with pytest.raises(SkillFormatError, match=reason):
        parse_skill_md(text, "s")


def test_render_puts_standard_keys_first_and_keeps_body() -> None:
    text = render_skill_md({"custom": 1, "description": "d: with colon", "name": "s"}, "# Body\n")
    assert text.startswith("---\nname: s\ndescription: 'd: with colon'\ncustom: 1\n---\n")
    assert text.endswith("# Body\n")
    validate_skill_md(text, "s")
