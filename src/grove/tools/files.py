"""The `files` toolset: read_file, write_file, patch, search_files (names and arguments shared with other agents).

Every path goes through the session's backend (grove.backends): locally grove.security.files.confine (the workspace
and declared roots are free, anything else is asked about, grove's own home is never changed; as root the acts use
the sandbox uid's rights), over SSH the remote workspace, resolved on the remote side."""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from collections.abc import Iterator
from contextlib import closing, contextmanager

from grove.backends.base import BackendError, Files, Spot, TextOpener
from grove.backends.local import SKIP_DIRS
from grove.security.files.confine import Refused
from grove.tools.context import ToolContext, backend_of
from grove.tools.registry import Tool, ToolError, make_tool
from grove.tools.search_pattern import Pattern, compile_pattern

MAX_READ_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_MATCHES = 100
__all__ = ["SKIP_DIRS", "patch", "read_file", "search_files", "tools", "write_file"]


def read_file(ctx: ToolContext, path: str, offset: int = 1, limit: int = 500) -> str:
    """Read a text file; lines come numbered. Use offset/limit to page through long files.

    Args:
        path: file path, relative to the workspace or absolute
        offset: first line to return (1-based)
        limit: how many lines to return (at most 2000)
    """
    with _confined(ctx) as conf:
        data = _read(conf, path)
    _seen(ctx, path)
    if b"\0" in data[:8192]:
        raise ToolError(f"{path} looks binary ({len(data)} bytes); not shown")
    lines = data.decode("utf-8", errors="replace").splitlines()
    start = max(offset, 1) - 1
    limit = max(1, min(limit, MAX_READ_LINES))
    chunk = _redacted(lines[start : start + limit])
    body = "\n".join(f"{start + i + 1:>6}|{ln[:MAX_LINE_CHARS]}" for i, ln in enumerate(chunk))
    if start + limit < len(lines):
        body += f"\n[{len(lines) - start - limit} more lines; read on with offset={start + limit + 1}]"
    if not lines:
        return f"[{path} is empty]"
    if not body:
        return f"[{path} has {len(lines)} lines; offset {offset} is past the end]"
    from grove.security.injection.scan import screen

    return screen(body, source=f"file {path}")  # planted instructions come back as quoted data


def _redacted(lines: list[str]) -> list[str]:
    """The lines with secrets masked before they get numbers: a number in front of every line hides the context
    (a table's header, the command above a token) that tells a secret from other text. Masked block by block
    (blocks end at blank lines); a block whose line count masking changes (a private key becomes one line) is
    left as it is, so the numbers never lie, and the conversation's own redaction sees it numbered."""
    from grove.security.secrets.redact import redact

    out: list[str] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            block.append(line)
            continue
        if block:
            text = "\n".join(block)
            clean = redact(text)
            out += clean.split("\n") if clean.count("\n") == text.count("\n") else block
            block = []
        out.append(line)
    return out[: len(lines)]


def write_file(ctx: ToolContext, path: str, content: str) -> str:
    """Create or overwrite a file with the given content (parent folders are created).

    Args:
        path: file path, relative to the workspace or absolute
        content: the whole new content
    """
    with _confined(ctx) as conf:
        place = conf.locate(path, write=True)
        try:
            if ctx.needs.read_before_write and place.exists and _key(ctx, path) not in ctx.seen_files:
                raise ToolError(
                    f"{path} already exists and you have not read it in this session: read_file it first, "
                    "then write its whole new content"
                )
            same = place.exists and ctx.needs.read_before_write and _holds(conf, place, path, content)
            if not same:
                conf.write(place, path, content.encode("utf-8"))
        finally:
            place.close()
    _seen(ctx, path)
    if (
        same
    ):  # a small model rewrites and rereads the same content until its budget is gone: tell it it is done
        return f"{path} already holds exactly this content (nothing to change); if the task is done, say so"
    return f"wrote {len(content.encode())} bytes to {path}"


def _holds(conf: Files, place: Spot, path: str, content: str) -> bool:
    try:
        return conf.read(place, path) == content.encode("utf-8")
    except (OSError, ToolError, Refused):
        return False


def _key(ctx: ToolContext, path: str) -> str:
    return os.path.normpath(os.path.join(ctx.workspace, os.path.expanduser(path)))


def _seen(ctx: ToolContext, path: str) -> None:
    # small models overwrite a file with a guess at its content (`{"workers": 9}` for a whole config): with
    # needs.read_before_write an existing file must be read (or written) in the session first
    if ctx.needs.read_before_write:
        ctx.seen_files.add(_key(ctx, path))


def patch(ctx: ToolContext, path: str, old_string: str, new_string: str, replace_all: bool = False) -> str:
    """Replace one exact, unique fragment of a file. Read the file first; include enough context to be unique.

    Args:
        path: file to edit
        old_string: the exact text to replace (must occur exactly once, unless replace_all)
        new_string: the replacement text
        replace_all: replace every occurrence (e.g. renaming a name everywhere)
    """
    with _confined(ctx) as conf:
        place = conf.locate(path, write=True)
        try:
            if not place.exists or not place.name:
                raise ToolError(f"{path} does not exist")
            text = conf.read(place, path).decode("utf-8")
            count = text.count(old_string) if old_string else 0
            if count == 0:
                from grove.textmatch import closest_hint  # difflib: only for a fragment not found

                hint = closest_hint(text, old_string)
                raise ToolError(f"old_string not found in {path}{hint}{_lines_near(text, hint)}")
            if count > 1 and not replace_all:
                raise ToolError(
                    f"old_string occurs {count} times in {path}; add surrounding lines to make it unique, "
                    "or set replace_all to change every one"
                )
            new_text = text.replace(old_string, new_string, -1 if replace_all else 1)
            conf.write(place, path, new_text.encode("utf-8"))
        finally:
            place.close()
    times = f", {count} places" if count > 1 else ""
    head = f"patched {path} (-{old_string.count(chr(10)) + 1} +{new_string.count(chr(10)) + 1} lines{times})"
    shown = _screened(_around(new_text, new_string), f"file {path}")
    return f"{head}; the change is saved (no write_file needed), it now reads:\n{shown}"


def _screened(text: str, source: str) -> str:
    """A file's lines as a tool result shows them: secrets redacted, planted instructions quoted as data."""
    from grove.security.injection.scan import screen
    from grove.security.secrets.redact import redact

    return screen(redact(text), source=source)


def _lines_near(text: str, hint: str) -> str:
    """The file's real lines around the closest line: a small model retries the same wrong multi-line old_string
    when told only that one line is close, and copies the real ones when it sees them."""
    lines = text.split("\n")
    closest = hint.partition("closest line: ")[2]
    try:
        at = lines.index(ast.literal_eval(closest)) if closest else -1
    except (ValueError, SyntaxError):
        return ""
    if at < 0:
        return ""
    near = _screened("\n".join(lines[max(0, at - 1) : at + 3]), "file")
    return f"; copy old_string exactly from the file, whose lines there are:\n{near}"


def _around(text: str, fragment: str, context: int = 1, most: int = 8) -> str:
    """The lines of the first place `fragment` now sits in `text`, with a line around: a small model that does not
    see its change landed writes the whole file again from memory."""
    start = text.find(fragment) if fragment else -1
    if start < 0:
        return "(the fragment was deleted)"
    first = text.count("\n", 0, start)
    last = first + fragment.count("\n")
    lines = text.split("\n")
    lo, hi = max(0, first - context), min(len(lines), last + context + 1, first + most)
    return "\n".join(lines[lo:hi])


def search_files(ctx: ToolContext, pattern: str, path: str = ".", glob: str | None = None) -> str:
    """Search file contents for a regular expression; with pattern '' list files instead.

    Args:
        pattern: regular expression to look for in file contents ('' lists files)
        path: folder (or file) to search, relative to the workspace
        glob: only files whose name matches this glob, e.g. '*.py'
    """
    rx = compile_pattern(pattern) if pattern else None
    out: list[str] = []
    skipped = 0
    with _confined(ctx) as conf:
        place = conf.locate(path, write=False)
        try:
            if not place.exists:
                raise ToolError(f"{path} does not exist")
            with closing(conf.walk(place)) as files:  # closed at a break: the walk's acting rights end there
                for real, opener in files:
                    if glob and not fnmatch.fnmatch(os.path.basename(real), glob):
                        continue
                    shown = conf.shown(real)
                    if rx is None:
                        out.append(shown)
                    elif opener is None:
                        skipped += 1
                    else:
                        out += _grep(opener, rx, shown, MAX_MATCHES - len(out))
                    if len(out) >= MAX_MATCHES:
                        out.append(f"[stopped at {MAX_MATCHES} results; narrow the pattern, path or glob]")
                        break
        finally:
            place.close()
    if skipped and rx is not None:
        out.append(f"[{skipped} files not searched: hard-linked or not regular files]")
    if (
        out
    ):  # matched lines are the files' text: secrets redacted and planted instructions quoted, as read_file
        return _screened("\n".join(out), f"search results in {path}")
    # a small model searches for '^# TODO' where the comment ends a line of code: say how to widen the search
    # the pattern is not echoed: it may be the very secret a search was probing for
    return "no matches" + (
        " (the pattern has anchors or symbols: try just the word)"
        if re.search(r"[\^$\\#\[(]", pattern)
        else ""
    )


# --- helpers


@contextmanager
def _confined(ctx: ToolContext) -> Iterator[Files]:
    """The session's backend's file view for one tool call; refusals and failures become the model's errors."""
    try:
        with backend_of(ctx).files() as conf:
            yield conf
    except (Refused, BackendError) as e:
        raise ToolError(str(e)) from None


def _read(conf: Files, path: str) -> bytes:
    place = conf.locate(path, write=False)
    try:
        return conf.read(place, path)
    finally:
        place.close()


def _grep(opener: TextOpener, rx: Pattern, shown: str, room: int) -> list[str]:
    out: list[str] = []
    try:
        with opener() as fh:
            lines_matching = getattr(rx, "lines_matching", None)
            if lines_matching is not None:  # Python's re: the whole file searched in a bounded worker
                lines = fh.readlines()
                hits = lines_matching(lines)[:room]
                return [f"{shown}:{n + 1}:{lines[n].rstrip()[:300]}" for n in hits]
            for n, line in enumerate(fh, 1):
                if rx.search(line):
                    out.append(f"{shown}:{n}:{line.rstrip()[:300]}")
                    if len(out) >= room:
                        break
    except (UnicodeDecodeError, OSError):
        return out
    return out


def tools() -> list[Tool]:
    return [
        make_tool(read_file, toolset="files"),
        make_tool(write_file, toolset="files", mutating=True),
        make_tool(patch, toolset="files", mutating=True),
        make_tool(search_files, toolset="files"),
    ]
