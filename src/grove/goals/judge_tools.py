"""The goal judge's tools: read_file, search_files and list_files over the workspace only. Nothing writes, nothing
runs; a path that leads outside the workspace (`..`, absolute, a symlink out) is refused before it is opened, and
what is left goes through the file tools' own confinement with nobody to ask (so it is denied, never asked)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from grove.security.approval.policy import SafetyPolicy
from grove.tools import files
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, ToolRegistry, make_tool

READ_ONLY = ("read_file", "search_files")


def _inside(ctx: ToolContext, path: str) -> None:
    """Refuse `path` unless it resolves (links followed) to the workspace or below."""
    root = os.path.realpath(ctx.workspace)
    real = os.path.realpath(os.path.join(root, os.path.expanduser(path or ".")))
    if real != root and not real.startswith(root.rstrip("/") + "/"):
        raise ToolError(
            f"{path} is outside the workspace; the judge reads only the workspace ({ctx.workspace})"
        )


def list_files(ctx: ToolContext, path: str = ".", glob: str | None = None) -> str:
    """List the files under a folder of the workspace (recursively; build and VCS folders skipped).

    Args:
        path: folder to list, relative to the workspace
        glob: only files whose name matches this glob, e.g. '*.py'
    """
    _inside(ctx, path)
    return files.search_files(ctx, "", path, glob)


def _confined(tool: Tool) -> Tool:
    def handler(ctx: ToolContext, **kw: Any) -> Any:
        _inside(ctx, str(kw.get("path") or "."))
        return tool.handler(ctx, **kw)

    return dataclasses.replace(tool, handler=handler)


def judge_registry() -> ToolRegistry:
    by_name = {t.name: t for t in files.tools()}
    chosen = [_confined(by_name[n]) for n in READ_ONLY]
    return ToolRegistry([*chosen, make_tool(list_files, toolset="files")])


def judge_context(workspace: Path, settings: Any = None) -> ToolContext:
    """A context where nothing can be approved: an act needing approval (outside a declared root, a hard link)
    is denied at once, whatever the user's approval mode."""
    return ToolContext(
        workspace=Path(workspace).resolve(), policy=SafetyPolicy(unattended=True), settings=settings
    )
