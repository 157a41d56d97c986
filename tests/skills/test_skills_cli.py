"""`grove skills ...` as a user runs it: import, list, show, validate, patch history, rollback, pin, archive."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from skillkit import skill_text, write_skill
from typer.testing import CliRunner

from grove.cli.skills import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_import_list_show_history_rollback(home: Path, tmp_path: Path) -> None:
    src = tmp_path / "claude-skills"
    write_skill(src, "git-tidy", skill_text("git-tidy", "Tidy git history.", "squash commits\n"))
    write_skill(src, "broken", "---\nname: broken\n---\n")
    result = run("import", str(src))
    assert result.exit_code == 0, result.output
    assert "imported  git-tidy" in result.output and "invalid   broken" in result.output

    listed = json.loads(run("list", "--json").output)
    assert [s["name"] for s in listed["skills"]] == ["git-tidy"]
    assert "squash commits" in run("show", "git-tidy").output

    original = (home / "skills" / "git-tidy" / "SKILL.md").read_bytes()
    from grove.skills.manage import SkillManager

    SkillManager(home / "skills", actor="agent").patch("git-tidy", "squash", "fixup", reason="better word")
    history = run("history", "git-tidy")
    assert "v1" in history.output and "agent" in history.output and "better word" in history.output
    assert run("rollback", "git-tidy", "1").exit_code == 0
    assert (home / "skills" / "git-tidy" / "SKILL.md").read_bytes() == original


def test_validate_exit_codes(home: Path, tmp_path: Path) -> None:
    good = write_skill(tmp_path / "lib", "good")
    write_skill(tmp_path / "lib", "Bad_One", skill_text("Bad_One"))
    assert run("validate", str(good)).exit_code == 0
    result = run("validate", str(tmp_path / "lib"))
    assert result.exit_code == 1 and "invalid" in result.output and "'name'" in result.output
    assert run("validate", str(tmp_path / "nowhere")).exit_code == 2  # no such skill or folder: a usage error


def test_create_pin_archive_restore(home: Path) -> None:
    assert (
        run(
            "create", "notes-helper", "-d", "Keeps notes. Use when asked to remember.", "-c", "docs"
        ).exit_code
        == 0
    )
    assert run("pin", "notes-helper").exit_code == 0
    result = run("archive", "notes-helper")
    assert result.exit_code == 1
    assert run("unpin", "notes-helper").exit_code == 0
    assert run("archive", "notes-helper").exit_code == 0
    assert run("restore", "notes-helper").exit_code == 0
    listed = json.loads(run("list", "--json").output)["skills"]
    assert listed[0]["category"] == "docs" and listed[0]["created_by"] == "user"


def test_create_refuses_bad_name(home: Path) -> None:
    result = run("create", "Bad Name", "-d", "x")
    assert result.exit_code == 1


def test_edit_uses_editor(home: Path, tmp_path: Path, monkeypatch) -> None:
    write_skill(home / "skills", "s")
    script = tmp_path / "ed.py"
    script.write_text(
        "import sys,pathlib; p=pathlib.Path(sys.argv[1]); p.write_text(p.read_text().replace('Go', 'Run'))"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    assert run("edit", "s").exit_code == 0
    assert "Run." in (home / "skills" / "s" / "SKILL.md").read_text()


def test_trust(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert run("trust", str(project)).exit_code == 0
    assert str(project.resolve()) in (home / "trusted.yaml").read_text()
    assert run("trust", str(tmp_path / "missing")).exit_code == 1


def test_edit_that_breaks_the_skill_is_refused_and_kept(home: Path, tmp_path: Path, monkeypatch) -> None:
    write_skill(home / "skills", "s")
    script = tmp_path / "ed.py"
    script.write_text("import sys,pathlib; p=pathlib.Path(sys.argv[1]); p.write_text('no frontmatter')")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    result = runner.invoke(app, ["edit", "s"])
    assert result.exit_code == 1
    assert "Go." in (home / "skills" / "s" / "SKILL.md").read_text()
