"""The moving-in report: one entry per thing found, saying what happened to it and where it landed."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Literal

Kind = Literal["skill", "memory", "user", "mcp", "session", "file"]
Action = Literal["taken", "converted", "skipped"]
ACTIONS: tuple[Action, ...] = ("taken", "converted", "skipped")


@dataclass
class Entry:
    kind: Kind
    item: str  # what it was in the other agent (a skill name, a file, a server, a session id)
    action: Action  # taken as is, converted to grove's form, or skipped
    dest: str = ""  # where it landed, relative to GROVE_HOME ('' when skipped)
    detail: str = ""  # why skipped / how converted

    def line(self) -> str:
        where = f" -> {self.dest}" if self.dest else ""
        why = f" ({self.detail})" if self.detail else ""
        return f"{self.action:<9} {self.kind:<7} {self.item}{where}{why}"


@dataclass
class Report:
    agent: str
    source: str
    applied: bool
    entries: list[Entry] = field(default_factory=list)

    def add(self, kind: Kind, item: str, action: Action, dest: str = "", detail: str = "") -> Entry:
        entry = Entry(kind, item, action, dest, detail)
        self.entries.append(entry)
        return entry

    def counts(self) -> dict[str, int]:
        c = Counter(e.action for e in self.entries)
        return {a: c.get(a, 0) for a in ACTIONS}

    def text(self) -> str:
        head = (
            f"moved in from {self.agent} ({self.source})"
            if self.applied
            else f"DRY RUN: nothing was written. This is what `grove import {self.agent} --apply` would do "
            f"(from {self.source}):"
        )
        counts = self.counts()
        tail = ", ".join(f"{n} {a}" for a, n in counts.items())
        lines = [head, *(e.line() for e in self.entries), tail]
        if not self.applied:
            lines.append("nothing written; run again with --apply to move in (--force replaces what exists)")
        return "\n".join(lines)

    def as_json(self) -> str:
        data = {
            "agent": self.agent,
            "source": self.source,
            "applied": self.applied,
            "counts": self.counts(),
            "entries": [asdict(e) for e in self.entries],
        }
        return json.dumps(data, ensure_ascii=False, indent=1)
