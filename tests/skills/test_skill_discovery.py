"""Sources and precedence: GROVE_HOME, trusted project folders only, external dirs; bounded scan; skip reasons."""

from __future__ import annotations

from pathlib import Path

from skillkit import skill_text, write_skill

from grove.config import Settings, SkillsConfig
from grove.skills.discover import discover, iter_skill_dirs
from grove.skills.trust import is_trusted, trust_project


def test_home_skills_load_and_bad_ones_are_skipped_with_reasons(
    settings: Settings, skills_root: Path
) -> None:
    write_skill(skills_root, "good")
    write_skill(skills_root, "no-desc", "---\nname: no-desc\n---\nbody")
    write_skill(skills_root, "broken", "---\nname: [oops\n---\n")
    (skills_root / ".history" / "good" / "000001").mkdir(parents=True)
    (skills_root / ".history" / "good" / "000001" / "SKILL.md").write_text(skill_text("good"))
    lib = discover(settings, None)
    assert list(lib.skills) == ["good"]
    reasons = {k.path.name: k.reason for k in lib.skipped}
    assert "description" in reasons["no-desc"] and "YAML" in reasons["broken"]


def test_project_skills_need_trust(settings: Settings, skills_root: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_skill(project / ".grove" / "skills", "proj-skill")
    write_skill(project / ".agents" / "skills", "agents-skill")
    assert "proj-skill" not in discover(settings, project).skills
    trust_project(settings.home, project)
    assert is_trusted(settings.home, project)
    lib = discover(settings, project)
    assert {"proj-skill", "agents-skill"} <= set(lib.skills)
    assert lib.skills["proj-skill"].source == "project"


def test_precedence_home_wins_with_a_warning(settings: Settings, skills_root: Path, tmp_path: Path) -> None:
    ext = tmp_path / "claude-skills"
    write_skill(skills_root, "shared", skill_text("shared", "home version"))
    write_skill(ext, "shared", skill_text("shared", "external version"))
    write_skill(ext, "only-external")
    settings.skills.external_dirs.append(str(ext))
    lib = discover(settings, None)
    assert lib.skills["shared"].description == "home version"
    assert lib.skills["only-external"].source == "external"
    assert any("shadowed" in w for w in lib.warnings)


def test_settings_section_is_used_when_present(tmp_path: Path, home: Path) -> None:
    from types import SimpleNamespace

    ext = tmp_path / "ext"
    write_skill(ext, "from-settings")
    fake = SimpleNamespace(home=home, skills=SkillsConfig(external_dirs=[str(ext)]))
    assert "from-settings" in discover(fake, None).skills


def test_category_folders_and_depth_bound(tmp_path: Path) -> None:
    root = tmp_path / "hermes"
    write_skill(root / "devops", "deploy-it")
    write_skill(root / "a" / "b" / "c", "deep-ok")
    write_skill(root / "a" / "b" / "c" / "d" / "e" / "f", "too-deep")
    found = {d.name: cat for d, cat in iter_skill_dirs(root)}
    assert found == {"deploy-it": "devops", "deep-ok": None}
    assert "too-deep" in {d.name for d, _ in iter_skill_dirs(root, max_depth=7)}
    many = tmp_path / "many"
    for i in range(30):
        write_skill(many, f"s{i}")
    assert len(list(iter_skill_dirs(many, limit=10))) == 10


def test_cache_sees_a_same_size_rewrite(settings: Settings, skills_root: Path) -> None:
    from grove.atomic_files import atomic_write_text

    write_skill(skills_root, "s", skill_text("s", "version AAA"))
    assert discover(settings, None).skills["s"].description == "version AAA"
    atomic_write_text(skills_root / "s" / "SKILL.md", skill_text("s", "version BBB"))
    assert discover(settings, None).skills["s"].description == "version BBB"
