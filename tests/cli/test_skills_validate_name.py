"""`grove skills validate NAME` takes a skill's name, as the other `skills` subcommands do (a path still works)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.clirun import grove


def test_validate_by_name_and_by_path(grove_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    desc = "Keeps notes. Use when asked to remember."
    assert grove(capsys, "skills", "create", "notes-helper", "-d", desc, "-c", "docs")[0] == 0
    code, out, err = grove(capsys, "skills", "validate", "notes-helper")
    assert code == 0, out + err
    assert "notes-helper" in out
    code, _, err = grove(capsys, "skills", "validate", "no-such-skill")
    assert code == 2 and err.startswith("grove: no skill or folder 'no-such-skill'")
