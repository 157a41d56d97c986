"""Fixtures of the code-skill tests: `call` runs one code-skill tool in the test's workspace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grove.config import Settings
from grove.tools import code_skills
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry, ToolResult


@pytest.fixture
def call(settings: Settings, workspace: Path) -> Callable[..., ToolResult]:
    reg = ToolRegistry(code_skills.tools())
    ctx = ToolContext(workspace=workspace, settings=settings)

    def do(tool: str, /, **args: object) -> ToolResult:
        return reg.call(ctx, tool, args)

    return do
