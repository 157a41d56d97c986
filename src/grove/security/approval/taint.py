"""Taint: once untrusted content (terminal output, MCP results, files from outside the workspace) is in the
conversation, acts that send data out or reach beyond the workspace need approval, naming the source."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.security.commands.base import FETCHERS, NETWORK, Finding

MAX_SOURCES = 8  # the first few sources are named to the user; the rest only counted


@dataclass
class Taint:
    """Which untrusted sources entered this session's conversation (marked where tool results enter it)."""

    sources: list[str] = field(default_factory=list)

    def mark(self, source: str) -> None:
        if source not in self.sources:
            self.sources.append(source)

    def __bool__(self) -> bool:
        return bool(self.sources)

    def describe(self) -> str:
        shown = ", ".join(self.sources[:MAX_SOURCES])
        more = len(self.sources) - MAX_SOURCES
        return shown + (f" and {more} more" if more > 0 else "")


def result_source(name: str, toolset: str, untrusted_output: bool, args: Any, workspace: Path) -> str | None:
    """The untrusted source a tool result brings into the conversation, or None: a tool that declares its
    output untrusted (terminal, MCP), or a file tool whose `path` lies outside the workspace."""
    if untrusted_output:
        url = args.get("url") if isinstance(args, dict) else None
        # a web tool names the page it read, so the question and `--json` say which source it was
        return f"{name} of {url}" if isinstance(url, str) and url else f"output of {name}"
    path = args.get("path") if isinstance(args, dict) and toolset == "files" else None
    if not isinstance(path, str) or not path:
        return None
    root = os.path.realpath(workspace)
    where = os.path.realpath(os.path.join(root, os.path.expanduser(path)))
    inside = where == root or where.startswith(root.rstrip(os.sep) + os.sep)
    return None if inside else f"{name} of {path} (outside the workspace)"


def reaches_network(command: str) -> bool:
    """Whether a command names a network program (the classifier's lists) in any of its words."""
    try:
        words = shlex.split(command, comments=False)
    except ValueError:
        words = command.split()
    names = {w.rsplit("/", 1)[-1] for w in words}
    return bool(names & (NETWORK | FETCHERS))


def egress_finding(taint: Taint, why: str) -> Finding:
    """What makes an act that may send data out need approval while untrusted content is in context: asked
    attended, denied unattended (the rule id names the sources, so an answer covers this taint only)."""
    sources = taint.describe()
    return Finding(
        f"taint-egress:{sources}",
        f"{why}, and untrusted content is in this conversation ({sources}): it may be following instructions "
        "planted there",
        effect="exfiltrate",
    )
