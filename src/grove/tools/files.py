"""The `files` toolset: read_file, write_file, patch, search_files (names and arguments shared with other agents)."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from grove.store.files import atomic_write_text
from grove.textmatch import closest_hint
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

MAX_READ_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_MATCHES = 100
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".ruff_cache", ".tox"}


def read_file(ctx: ToolContext, path: str, offset: int = 1, limit: int = 500) -> str:
    """Read a text file; lines come numbered. Use offset/limit to page through long files.

    Args:
        path: file path, relative to the workspace or absolute
        offset: first line to return (1-based)
        limit: how many lines to return (at most 2000)
    """
    p = ctx.resolve(path)
    if not p.exists():
        raise ToolError(f"{path} does not exist")
    if p.is_dir():
        raise ToolError(f"{path} is a directory; use search_files to list it")
    data = p.read_bytes()
    if b"\0" in data[:8192]:
        raise ToolError(f"{path} looks binary ({len(data)} bytes); not shown")
    lines = data.decode("utf-8", errors="replace").splitlines()
    start = max(offset, 1) - 1
    limit = max(1, min(limit, MAX_READ_LINES))
    chunk = lines[start : start + limit]
    body = "\n".join(f"{start + i + 1:>6}|{ln[:MAX_LINE_CHARS]}" for i, ln in enumerate(chunk))
    if start + limit < len(lines):
        body += f"\n[{len(lines) - start - limit} more lines; read on with offset={start + limit + 1}]"
    if not lines:
        return f"[{path} is empty]"
    if not body:
        return f"[{path} has {len(lines)} lines; offset {offset} is past the end]"
    from grove.security.injection import screen

    return screen(body, source=f"file {path}")  # planted instructions come back as quoted data


def write_file(ctx: ToolContext, path: str, content: str) -> str:
    """Create or overwrite a file with the given content (parent folders are created).

    Args:
        path: file path, relative to the workspace or absolute
        content: the whole new content
    """
    p = ctx.resolve(path)
    if p.is_dir():
        raise ToolError(f"{path} is a directory")
    atomic_write_text(p, content)
    return f"wrote {len(content.encode())} bytes to {path}"


def patch(ctx: ToolContext, path: str, old_string: str, new_string: str) -> str:
    """Replace one exact, unique fragment of a file. Read the file first; include enough context to be unique.

    Args:
        path: file to edit
        old_string: the exact text to replace (must occur exactly once)
        new_string: the replacement text
    """
    p = ctx.resolve(path)
    if not p.is_file():
        raise ToolError(f"{path} does not exist")
    text = p.read_text(encoding="utf-8")
    count = text.count(old_string) if old_string else 0
    if count == 0:
        raise ToolError(f"old_string not found in {path}{closest_hint(text, old_string)}")
    if count > 1:
        raise ToolError(f"old_string occurs {count} times in {path}; add surrounding lines to make it unique")
    atomic_write_text(p, text.replace(old_string, new_string, 1))
    return f"patched {path} (-{old_string.count(chr(10)) + 1} +{new_string.count(chr(10)) + 1} lines)"


def search_files(ctx: ToolContext, pattern: str, path: str = ".", glob: str | None = None) -> str:
    """Search file contents for a regular expression; with pattern '' list files instead.

    Args:
        pattern: regular expression to look for in file contents ('' lists files)
        path: folder (or file) to search, relative to the workspace
        glob: only files whose name matches this glob, e.g. '*.py'
    """
    root = ctx.resolve(path)
    if not root.exists():
        raise ToolError(f"{path} does not exist")
    try:
        rx = re.compile(pattern) if pattern else None
    except re.error as e:
        raise ToolError(f"invalid regular expression: {e}") from e
    out: list[str] = []
    for f in _walk(root):
        if glob and not fnmatch.fnmatch(f.name, glob):
            continue
        rel = os.path.relpath(f, ctx.workspace)
        if rx is None:
            out.append(rel)
        else:
            try:
                with f.open(encoding="utf-8", errors="strict") as fh:
                    for n, line in enumerate(fh, 1):
                        if rx.search(line):
                            out.append(f"{rel}:{n}:{line.rstrip()[:300]}")
                            if len(out) >= MAX_MATCHES:
                                break
            except (UnicodeDecodeError, OSError):
                continue
        if len(out) >= MAX_MATCHES:
            out.append(f"[stopped at {MAX_MATCHES} results; narrow the pattern, path or glob]")
            break
    return "\n".join(out) if out else "no matches"


def _walk(root: Path):
    if root.is_file():
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath) / name


def tools() -> list[Tool]:
    return [
        make_tool(read_file, toolset="files"),
        make_tool(write_file, toolset="files", mutating=True),
        make_tool(patch, toolset="files", mutating=True),
        make_tool(search_files, toolset="files"),
    ]
