"""The hub through `grove skills ...` as a user types it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hubkit import commit, git_repo, skill_md
from tests.clirun import grove

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_install_outdated_update_uninstall(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git_repo(repo, {"skills/lint-fix/SKILL.md": skill_md("lint-fix", "Run `ruff check --fix`.\n")})
    code, out, _ = grove(capsys, "skills", "install", str(repo))
    assert code == 0 and "imported    lint-fix" in out and "installed 1 of 1" in out
    commit(
        repo,
        {"skills/lint-fix/SKILL.md": skill_md("lint-fix", "Run `ruff check --fix` then `ruff format`.\n")},
        "2",
    )
    code, out, _ = grove(capsys, "skills", "outdated")
    assert code == 0 and "lint-fix" in out and "outdated" in out
    code, out, _ = grove(capsys, "skills", "update", "lint-fix")
    assert code == 0 and "+Run `ruff check --fix` then `ruff format`." in out and "rollback lint-fix" in out
    code, out, _ = grove(capsys, "skills", "uninstall", "lint-fix")
    assert code == 0 and "restore lint-fix" in out
    code, _, err = grove(capsys, "skills", "uninstall", "lint-fix")
    assert code == 2 and "not installed from the hub" in err
    code, _, err = grove(capsys, "skills", "install", str(tmp_path / "missing"))
    assert code == 2 and "does not exist" in err
