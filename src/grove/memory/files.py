"""MEMORY.md and USER.md on disk: entries split by a line holding only `§`, limits, locked all-or-nothing edits.

Edits run under a file lock (other grove processes queue) and re-check the file just before the atomic rename, so a
file edited by hand meanwhile is detected and never overwritten. A full file never drops an entry: its oldest
entries move to the file's archive (memory/archive/MEMORY.md, USER.md: unbounded, out of the prompt, searchable).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from grove.atomic_files import atomic_write_text
from grove.config.memory import MemoryConfig
from grove.errors import GroveError

SEPARATOR = "§"
JOINER = f"\n{SEPARATOR}\n"
FILES = {"memory": "MEMORY.md", "user": "USER.md"}
ARCHIVE_DIR = "archive"
Target = Literal["memory", "user"]
Action = Literal["add", "replace", "remove"]
Overflow = Literal["archive", "refuse"]


class MemoryEditError(GroveError):
    """A refused memory change; the message says why and what to do instead."""


@dataclass
class MemoryOp:
    # One operation; also the item type of the tool's batch, so no descriptions here: each costs tokens per call.
    # A dataclass, not a pydantic model: pydantic loads only when a tool call is validated.
    action: Action
    target: Target
    content: str | None = None
    old_text: str | None = None


@dataclass
class Fill:
    target: str
    used: int
    limit: int

    @property
    def ratio(self) -> float:
        return self.used / self.limit if self.limit else 1.0

    def header(self) -> str:
        return f"{FILES[self.target]} [{self.ratio:.0%} full — {self.used:,}/{self.limit:,} chars]"


@dataclass
class ApplyResult:
    messages: list[str] = field(default_factory=list)
    fills: dict[str, Fill] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    edited_outside: list[str] = field(default_factory=list)  # files that differed from the caller's baseline
    digests: dict[str, str] = field(default_factory=dict)
    archived: dict[str, list[str]] = field(default_factory=dict)  # entries moved to the archive to make room


@dataclass
class Found:
    """One entry a memory search found: where it lives (a file, or its archive) and its text."""

    target: str
    archived: bool
    text: str

    @property
    def where(self) -> str:
        return f"{ARCHIVE_DIR}/{FILES[self.target]}" if self.archived else FILES[self.target]


def parse_entries(text: str) -> list[str]:
    entries: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip() == SEPARATOR:
            entries.append("\n".join(current).strip())
            current = []
        else:
            current.append(line)
    entries.append("\n".join(current).strip())
    return [e for e in entries if e]


def render_entries(entries: list[str]) -> str:
    return JOINER.join(entries) + "\n" if entries else ""


def used_chars(entries: list[str]) -> int:
    return len(JOINER.join(entries))


def digest(text: str | None) -> str:
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()[:16]


class MemoryFiles:
    """The two memory files of one GROVE_HOME."""

    def __init__(self, home: Path, config: MemoryConfig | None = None) -> None:
        self.dir = Path(home) / "memory"
        self.config = config or MemoryConfig()

    def path(self, target: str) -> Path:
        if target not in FILES:
            raise MemoryEditError(
                f"unknown target {target!r}; use 'memory' (your notes) or 'user' (the user)"
            )
        return self.dir / FILES[target]

    def archive_path(self, target: str) -> Path:
        return self.dir / ARCHIVE_DIR / self.path(target).name

    def archived(self, target: str) -> list[str]:
        try:
            return parse_entries(self.archive_path(target).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []

    def search(self, query: str, limit: int = 10) -> list[Found]:
        """Entries of both files and their archives holding the query's words, most words first, live before
        archived; a query of no words lists nothing."""
        words = [w.lower() for w in query.split() if w.strip()]
        if not words:
            return []
        scored: list[tuple[int, int, Found]] = []
        for target in FILES:
            for archived, entries in ((False, self.entries(target)), (True, self.archived(target))):
                for n, entry in enumerate(entries):
                    low = entry.lower()
                    hits = sum(w in low for w in words)
                    if hits:
                        # newest first among equals: archives grow at the end
                        scored.append((-hits, int(archived) * 10**9 - n, Found(target, archived, entry)))
        scored.sort(key=lambda x: (x[0], x[1]))
        return [f for _, _, f in scored[:limit]]

    def limit(self, target: str) -> int:
        return self.config.memory_chars if target == "memory" else self.config.user_chars

    def read_text(self, target: str) -> str:
        try:
            return self.path(target).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""

    def entries(self, target: str) -> list[str]:
        return parse_entries(self.read_text(target))

    def fill(self, target: str) -> Fill:
        return Fill(target, used_chars(self.entries(target)), self.limit(target))

    def digests(self) -> dict[str, str]:
        return {t: digest(self.read_text(t)) for t in FILES}

    @contextmanager
    def _lock(self) -> Iterator[None]:
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def apply(
        self, ops: list[MemoryOp], baseline: dict[str, str] | None = None, overflow: Overflow = "archive"
    ) -> ApplyResult:
        """Apply every op or none. `baseline` (digests the caller saw last) only makes hand edits reported.
        `overflow`: a file grown past its limit moves its oldest entries to the archive, or (`refuse`: an import,
        which must not push the user's own entries out) the edit is refused with the fill level and advice."""
        if not ops:
            raise MemoryEditError("no operations given")
        result = ApplyResult()
        with self._lock():
            texts = {t: self.read_text(t) for t in FILES}
            before = {t: parse_entries(texts[t]) for t in FILES}
            after = {t: list(v) for t, v in before.items()}
            for i, op in enumerate(ops):
                where = f"operation {i + 1} ({op.action} {op.target}): " if len(ops) > 1 else ""
                try:
                    result.messages.append(_apply_one(after[op.target], op))
                except MemoryEditError as e:
                    tail = " Nothing was changed." if len(ops) > 1 else ""
                    raise MemoryEditError(f"{where}{e}{tail}") from None
            for t in FILES:
                if after[t] == before[t]:
                    continue
                used, limit = used_chars(after[t]), self.limit(t)
                if used > limit and used > used_chars(before[t]):
                    if overflow == "refuse":
                        raise MemoryEditError(_over_limit(t, before[t], used, limit))
                    result.archived[t] = _make_room(after[t], before[t], limit)
            for t in FILES:
                if after[t] == before[t]:
                    continue
                if digest(self.read_text(t)) != digest(texts[t]):  # someone wrote it without our lock
                    raise MemoryEditError(
                        f"{FILES[t]} was changed on disk while this edit ran (edited by hand?); nothing was "
                        "written. Read it again and retry."
                    )
                if result.archived.get(t):  # the archive first: a crash in between duplicates, never loses
                    self.archive_path(t).parent.mkdir(parents=True, exist_ok=True)
                    kept = self.archived(t)
                    atomic_write_text(
                        self.archive_path(t),
                        render_entries(kept + [e for e in result.archived[t] if e not in kept]),
                    )
                atomic_write_text(self.path(t), render_entries(after[t]))
                result.changed.append(t)
            for t in FILES:
                result.fills[t] = Fill(t, used_chars(after[t]), self.limit(t))
                result.digests[t] = (
                    digest(render_entries(after[t])) if t in result.changed else digest(texts[t])
                )
                if baseline is not None and t in baseline and baseline[t] != digest(texts[t]):
                    result.edited_outside.append(t)
        return result

    def clear(self, target: str) -> int:
        """Empty one file; returns the number of entries removed. The old text is kept as <file>.bak."""
        with self._lock():
            text = self.read_text(target)
            if text:
                atomic_write_text(self.path(target).with_suffix(".md.bak"), text)
                atomic_write_text(self.path(target), "")
        return len(parse_entries(text))


def _check_content(content: str | None, action: str) -> str:
    if content is None or not content.strip():
        raise MemoryEditError(f"'{action}' needs 'content': the entry to write (one fact, a sentence or two)")
    content = content.strip()
    if any(line.strip() == SEPARATOR for line in content.splitlines()):
        raise MemoryEditError(f"content may not contain a line holding only '{SEPARATOR}' (the separator)")
    from grove.skills.guard import scan_skill_text

    scan = scan_skill_text(content, source="memory", injection="refuse")  # no skill: an injection refuses
    if scan.verdict == "dangerous":
        raise MemoryEditError("content refused by the safety scan: " + "; ".join(scan.reasons))
    return content


def _find(entries: list[str], old_text: str | None, action: str) -> int:
    if not old_text or not old_text.strip():
        raise MemoryEditError(f"'{action}' needs 'old_text': a piece of the entry to {action}, as written")
    hits = [i for i, e in enumerate(entries) if old_text.strip() in e]
    if not hits:
        raise MemoryEditError(
            f"no entry contains {old_text.strip()[:80]!r}; quote it as it appears in memory"
        )
    if len(hits) > 1:
        raise MemoryEditError(
            f"{len(hits)} entries contain {old_text.strip()[:80]!r}; quote more of the one you mean"
        )
    return hits[0]


def _apply_one(entries: list[str], op: MemoryOp) -> str:
    name = FILES[op.target]
    if op.action == "add":
        content = _check_content(op.content, "add")
        if content in entries:
            return f"{name}: already holds that entry"
        entries.append(content)
        return f"{name}: added an entry"
    index = _find(entries, op.old_text, op.action)
    if op.action == "replace":
        entries[index] = _check_content(op.content, "replace")
        return f"{name}: replaced an entry"
    del entries[index]
    return f"{name}: removed an entry"


def _make_room(entries: list[str], before: list[str], limit: int) -> list[str]:
    """Move entries out of a file grown past its limit (in place) and return them, for the archive: the oldest
    entries that were there before first; then, if what this edit added is alone too large, the largest of it."""
    moved: list[str] = []
    for entry in [e for e in entries if e in before]:
        if used_chars(entries) <= limit:
            break
        entries.remove(entry)
        moved.append(entry)
    for entry in sorted(entries, key=len, reverse=True):
        if used_chars(entries) <= limit:
            break
        entries.remove(entry)
        moved.append(entry)
    return moved


def _over_limit(target: str, entries: list[str], used: int, limit: int) -> str:
    current = used_chars(entries)
    sizes = sorted(((len(e), e) for e in entries), reverse=True)[:5]
    largest = "; ".join(f"{n} chars: {e[:60]!r}" for n, e in sizes)
    return (
        f"{FILES[target]} is {current:,}/{limit:,} chars ({current / limit:.0%} full); this change would make it "
        f"{used:,}. Consolidate first: merge related entries with 'replace', shorten long ones, 'remove' what is "
        f"stale or no longer true, then add again. Largest entries: {largest or 'none'}."
    )
