"""`grove memory show | edit | clear` through the real CLI app."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from grove.cli.memory import app
from grove.memory.files import MemoryFiles, MemoryOp


def test_show_edit_clear(grove_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    MemoryFiles(grove_home).apply([MemoryOp(action="add", target="memory", content="uses make")])
    out = runner.invoke(app, ["show"])
    assert out.exit_code == 0 and "MEMORY.md [" in out.output and "uses make" in out.output
    assert "USER.md [0% full" in out.output and "(empty)" in out.output

    editor = tmp_path / "ed.sh"
    editor.write_text('#!/bin/sh\nprintf "likes tea\\n§\\nworks late\\n" > "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    out = runner.invoke(app, ["edit", "--user"])
    assert out.exit_code == 0 and "USER.md [" in out.output
    assert MemoryFiles(grove_home).entries("user") == ["likes tea", "works late"]

    out = runner.invoke(app, ["clear", "--agent", "--yes"])
    assert out.exit_code == 0 and "cleared MEMORY.md (1 entries" in out.output
    assert MemoryFiles(grove_home).entries("memory") == [] and MemoryFiles(grove_home).entries("user")
    assert runner.invoke(app, ["show", "--user", "--agent"]).exit_code == 2
    assert isinstance(app, typer.Typer)


def test_show_counts_the_archive(grove_home: Path) -> None:
    from grove.config.memory import MemoryConfig

    files = MemoryFiles(grove_home, MemoryConfig(memory_chars=100))
    files.apply([MemoryOp(action="add", target="memory", content="a" * 60)])
    files.apply([MemoryOp(action="add", target="memory", content="b" * 60)])  # moves the first out
    out = CliRunner().invoke(app, ["show", "--agent"])
    assert (
        out.exit_code == 0
        and "(1 older entries archived in " in out.output
        and "archive/MEMORY.md" in out.output
    )
