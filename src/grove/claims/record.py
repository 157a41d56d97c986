"""A turn's tool record as evidence: each call's tool, arguments, success and output, with what it touched (paths),
the command it ran and that command's exit code."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from grove.lazy_regex import later

_EXIT = later(r"^exit=(-?\d+)")
_TIMEOUT = later(r"(?:^|&&|;|\|)\s*timeout\s")
# an HTTP client exits 0 on an error response unless told otherwise (curl -f): the body says it failed
_HTTP_CLIENT = later(r"^\s*(curl|wget|http|https|xh)\s")
_HTTP_ERROR = later(
    r'"(error|errors)"\s*:|\b(unauthori[sz]ed|forbidden|not found|bad request)\b|^\s*[45]\d\d\s*$',
    re.I | re.M,
)
# tools whose successful call changes a file at args.path
WRITE_TOOLS = frozenset({"write_file", "patch"})
READ_TOOLS = frozenset({"read_file", "search_files", "view_image"})
COMMAND_TOOLS = frozenset({"terminal"})
# a shell command that writes files: a redirection, tee, an in-place edit, a copy or move, touch
SHELL_WRITE = later(r"(?<![<>&\d])>>?(?!&)|\btee\b|\bsed\s+-i|\btouch\b|\b(cp|mv|install|ln)\s|\bmkdir\b")
SHELL_DELETE = later(
    r"\b(rm|rmdir|unlink|shred|rmi|delete|del|drop)\b|\bgit\s+(rm|clean)\b|\bgit\s+(branch|tag)\s+-[dD]\b|"
    r"-delete\b|\bprune\b"
)
TEST_COMMAND = later(
    r"\b(pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest|ava)\b|"
    r"\b(go|cargo|npm|yarn|pnpm|bun|deno|mvn|gradle|dotnet|mix|swift)\s+(run\s+)?test\b|"
    r"\bmake\s+(test|check)\b|\bnpx\s+(jest|vitest|mocha)\b"
)


@dataclass(frozen=True)
class Event:
    index: int
    name: str
    args: dict[str, Any]
    ok: bool
    output: str

    @property
    def command(self) -> str:
        value = self.args.get("command") if self.name in COMMAND_TOOLS else None
        return value if isinstance(value, str) else ""

    @property
    def exit_code(self) -> int | None:
        """A command's exit code as the terminal tool reported it (exit=N on its first line)."""
        if not self.command:
            return None
        found = _EXIT.match(self.output)
        return int(found.group(1)) if found else None

    @property
    def succeeded(self) -> bool:
        """The call worked and, for a command, exited 0 (or ran until its `timeout` limit: a server that starts
        is still running when the limit ends it; a test run that hits it did not finish)."""
        if self.ok and self.exit_code == 124 and not self.is_test:
            return _TIMEOUT.search(self.command) is not None
        if self.ok and self.exit_code == 0 and _HTTP_CLIENT.match(self.command):
            return _HTTP_ERROR.search(self.output.split("\n", 1)[-1][:2000]) is None
        return self.ok and self.exit_code in (None, 0)

    @property
    def is_test(self) -> bool:
        return bool(self.command) and TEST_COMMAND.search(self.command) is not None

    @property
    def writes(self) -> bool:
        return self.name in WRITE_TOOLS or (
            bool(self.command) and SHELL_WRITE.search(self.command) is not None
        )

    @property
    def deletes(self) -> bool:
        if self.name == "skill_manage":
            return self.args.get("action") in ("remove_file", "delete")
        return bool(self.command) and SHELL_DELETE.search(self.command) is not None

    def paths(self) -> list[str]:
        """Paths the call names: its path arguments, and a command's words that look like paths."""
        found = [v for k in ("path", "file_path", "output_path") if isinstance(v := self.args.get(k), str)]
        if self.command:
            try:
                words = shlex.split(self.command, comments=False)
            except ValueError:
                words = self.command.split()
            found += [w.lstrip("<>") for w in words if "/" in w or "." in w]
        return [p for p in found if p]

    def mentions(self, target: str) -> bool:
        """Whether the call is about `target`: one of its paths is that path, or its command names it."""
        if any(same_path(p, target) for p in self.paths()):
            return True
        key = norm_path(target)
        if not (self.command and key):
            return False
        # the path as a whole word of the command: sorted.csv is not in people_sorted.csv
        return re.search(rf"(?<![\w.-]){re.escape(key)}(?![\w-])", self.command) is not None

    def adds(self, text: str) -> bool:
        """Whether a successful edit put `text` into a file (a patch's new_string, a write's content)."""
        added = " ".join(str(self.args.get(k) or "") for k in ("new_string", "content", "file_content"))
        return self.succeeded and bool(text) and text in added


@dataclass
class TurnRecord:
    events: list[Event] = field(default_factory=list)

    @classmethod
    def from_calls(cls, calls: Iterable[Any]) -> TurnRecord:
        """From the loop's ToolCallRecords (name, arguments, ok, content) or plain dicts with those keys."""
        events = []
        for i, call in enumerate(calls):
            get = call.get if isinstance(call, dict) else lambda k, d=None, c=call: getattr(c, k, d)
            args = get("arguments", None)
            if args is None:
                args = get("args", {})
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    args = {}
            output = get("content", None)
            if output is None:
                output = get("out", "")
            events.append(
                Event(
                    i,
                    str(get("name", "")),
                    args if isinstance(args, dict) else {},
                    bool(get("ok", False)),
                    str(output or ""),
                )
            )
        return cls(events)

    def named(self, *names: str) -> list[Event]:
        return [e for e in self.events if e.name in names]

    @property
    def commands(self) -> list[Event]:
        return [e for e in self.events if e.command]

    @property
    def changes(self) -> list[Event]:
        """Calls that change files: file tools, writing commands, skill and code-skill changes."""
        return [
            e
            for e in self.events
            if e.writes or e.name in ("skill_manage", "skill_code_create", "skill_code_patch")
        ]

    def changed(self, target: str) -> bool:
        """Whether a call (worked or not) set out to change `target`."""
        return any(e.mentions(target) for e in self.changes)

    def looked_at(self, target: str) -> bool:
        """A read of the file, or a search whose output names it."""
        name = norm_path(target)
        return any(
            (e.name in ("read_file", "view_image") and e.mentions(target))
            or (e.name == "search_files" and name in e.output)
            for e in self.events
        )

    def after(self, index: int) -> list[Event]:
        return [e for e in self.events if e.index > index]

    def last_change_index(self) -> int:
        changed = [e.index for e in self.changes if e.ok]
        return changed[-1] if changed else -1


def norm_path(path: str) -> str:
    p = path.strip().strip("`'\"").rstrip(".,;:)")
    while p.startswith("./"):
        p = p[2:]
    return p.rstrip("/")


def same_path(a: str, b: str) -> bool:
    """The same file, when one side may name it by a shorter path: src/api/routes.py and routes.py."""
    x, y = norm_path(a), norm_path(b)
    if not x or not y:
        return False
    if x == y or x.endswith("/" + y) or y.endswith("/" + x):
        return True
    # a file named without its extension: "the README" is README.md
    short, full = (x, y) if "." not in x.rsplit("/", 1)[-1] else (y, x)
    name = full.rsplit("/", 1)[-1]
    return "." not in short.rsplit("/", 1)[-1] and "." in name and name.split(".")[0].lower() == short.lower()
