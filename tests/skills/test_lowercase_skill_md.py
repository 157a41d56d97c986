"""Issue 33: a skill whose file is a lowercase `skill.md` is found, validated, imported and loaded the way the
Agent Skills reference validator (skills-ref) finds it: SKILL.md first, else skill.md; grove's library copy is
written as SKILL.md."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skillkit import skill_text
from typer.testing import CliRunner

from grove.cli.skills import app
from grove.config import Settings
from grove.skills.discover import discover
from grove.skills.importer import import_skills

runner = CliRunner()


def lowercase(root: Path, name: str, text: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "skill.md").write_text(text or skill_text(name, "Lower case file.", "lower body\n"), "utf-8")
    return folder


def case_sensitive(path: Path) -> bool:
    probe = path / "Case-Probe"
    probe.write_text("")
    try:
        return not (path / "case-probe").exists()
    finally:
        probe.unlink()


def test_skills_validate_finds_a_lowercase_skill_md_as_the_reference_does(home: Path, tmp_path: Path) -> None:
    folder = lowercase(tmp_path / "lib", "lower-skill")
    result = runner.invoke(app, ["validate", str(folder)])
    assert result.exit_code == 0, result.output
    skills_ref = pytest.importorskip("skills_ref")
    assert skills_ref.validate(folder) == []  # the reference accepts it too
    assert runner.invoke(app, ["validate", str(folder / "skill.md")]).exit_code == 0  # the file named itself


def test_a_broken_lowercase_skill_md_is_refused_by_both(home: Path, tmp_path: Path) -> None:
    folder = lowercase(tmp_path / "lib", "no-desc", "---\nname: no-desc\n---\nbody\n")
    assert runner.invoke(app, ["validate", str(folder)]).exit_code == 1
    skills_ref = pytest.importorskip("skills_ref")
    assert skills_ref.validate(folder)


def test_import_takes_a_lowercase_skill_md_and_writes_skill_md(
    home: Path, skills_root: Path, tmp_path: Path
) -> None:
    src = tmp_path / "collection"
    lowercase(src, "lower-skill")
    outcomes = import_skills(src, skills_root)
    assert [(o.name, o.status) for o in outcomes] == [("lower-skill", "imported")], outcomes
    installed = skills_root / "lower-skill"
    assert sorted(os.listdir(installed)) == ["SKILL.md"]  # written once, as SKILL.md; no second copy
    assert "lower body" in (installed / "SKILL.md").read_text(encoding="utf-8")


def test_a_lowercase_skill_md_in_another_agents_folder_is_discovered_and_read(
    settings: Settings, skills_root: Path, tmp_path: Path
) -> None:
    ext = tmp_path / "other-agent-skills"
    lowercase(ext, "lower-skill")
    settings.skills.external_dirs.append(str(ext))
    skill = discover(settings, None).skills["lower-skill"]
    assert skill.source == "external" and "lower body" in skill.body
    assert skill.skill_md.name == "skill.md"


def test_with_both_files_skill_md_wins_as_in_the_reference(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "both"
    folder.mkdir()
    if not case_sensitive(folder):
        pytest.skip("a case-insensitive filesystem cannot hold SKILL.md and skill.md side by side")
    (folder / "SKILL.md").write_text(skill_text("both", "Upper wins."), "utf-8")
    (folder / "skill.md").write_text("---\nname: both\n---\nno description\n", "utf-8")
    assert runner.invoke(app, ["validate", str(folder)]).exit_code == 0
    skills_ref = pytest.importorskip("skills_ref")
    assert skills_ref.validate(folder) == []


def test_another_casing_is_no_skill_file(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    if not case_sensitive(folder):
        pytest.skip("on a case-insensitive filesystem Skill.md is SKILL.md")
    (folder / "Skill.md").write_text(skill_text("odd"), "utf-8")
    assert runner.invoke(app, ["validate", str(folder)]).exit_code == 2  # no skill file found
    skills_ref = pytest.importorskip("skills_ref")
    assert skills_ref.validate(folder)
