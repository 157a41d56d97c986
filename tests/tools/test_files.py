"""The files toolset: paging, exact unique patches with a near-match hint, search and listing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grove.sandbox.users import SANDBOX_GID
from grove.tools import files
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    if os.geteuid() == 0:  # as the README asks root users to: the sandbox group may write the project
        os.chown(workspace, -1, SANDBOX_GID)
        os.chmod(workspace, 0o2775)
    return ToolContext(workspace=workspace)


def test_read_pages_through_long_files(ctx: ToolContext) -> None:
    (ctx.workspace / "long.txt").write_text("\n".join(f"line {i}" for i in range(1, 11)))
    out = files.read_file(ctx, "long.txt", offset=3, limit=2)
    assert out.splitlines()[:2] == ["     3|line 3", "     4|line 4"]
    assert "offset=5" in out
    with pytest.raises(ToolError, match="does not exist"):
        files.read_file(ctx, "missing.txt")


def test_read_refuses_binary(ctx: ToolContext) -> None:
    (ctx.workspace / "b.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(ToolError, match="binary"):
        files.read_file(ctx, "b.bin")


def test_patch_requires_one_exact_match(ctx: ToolContext) -> None:
    f = ctx.workspace / "code.py"
    f.write_text("def add(a, b):\n    return a + b\n\nx = 1\nx = 1\n")
    files.patch(ctx, "code.py", "return a + b", "return a + b  # sum")
    assert "# sum" in f.read_text()
    with pytest.raises(ToolError, match="occurs 2 times"):
        files.patch(ctx, "code.py", "x = 1", "x = 2")
    with pytest.raises(ToolError, match="closest line: 'def add"):
        files.patch(ctx, "code.py", "def add(a, c):", "nope")


def test_write_creates_folders(ctx: ToolContext) -> None:
    files.write_file(ctx, "deep/er/f.txt", "x")
    assert (ctx.workspace / "deep/er/f.txt").read_text() == "x"


def test_search_and_list(ctx: ToolContext) -> None:
    (ctx.workspace / "a.py").write_text("import os\nTODO = 1\n")
    (ctx.workspace / "b.md").write_text("TODO: write docs\n")
    (ctx.workspace / ".git").mkdir()
    (ctx.workspace / ".git" / "x").write_text("TODO hidden")
    assert files.search_files(ctx, "TODO", glob="*.py") == "a.py:2:TODO = 1"
    assert sorted(files.search_files(ctx, "").splitlines()) == ["a.py", "b.md"]
    with pytest.raises(ToolError, match="invalid regular expression"):
        files.search_files(ctx, "(")
