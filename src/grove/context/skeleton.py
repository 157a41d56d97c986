"""The deterministic skeleton: facts read straight off the messages, so they survive even a poor model summary.

Files read and written, commands and their exit codes, errors seen, the todo list; and the fact ledger (every
user request and constraint, decisions, findings, values), see ledger.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from grove.context import facts
from grove.context.ledger import READ_WORDS, Ledger
from grove.context.prune import PLACEHOLDER_PREFIX, tool_calls_by_id
from grove.llm.types import Message

WRITE_WORDS = ("write", "patch", "edit", "create", "delete", "move", "append")
SHELL_TOOLS = ("terminal", "shell", "bash", "run_command", "execute_code")
_EXIT = re.compile(r"^exit[=: ]\s*(-?\d+)", re.IGNORECASE)
_ERROR = re.compile(r"(error|exception|traceback|failed|not found|denied)", re.IGNORECASE)
LIMITS = {"files_read": 300, "files_written": 300, "commands": 40, "errors": 40}
BIG_BUDGET = 1_000_000  # render everything: for readers with their own budget


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _add(items: list[Any], item: Any, limit: int, keep_first: int = 0) -> None:
    if item in items:
        return
    items.append(item)
    if len(items) > limit:  # keep the first few (the original intent) and the most recent
        del items[keep_first]


@dataclass
class Skeleton:
    goals: list[str] = field(default_factory=list)  # only in records written before the ledger; read into it
    files_read: list[str] = field(default_factory=list)
    files_written: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)  # "cmd -> exit N"
    errors: list[str] = field(default_factory=list)
    todo: list[dict[str, str]] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> Skeleton:
        if not text:
            return cls()
        data = json.loads(text)
        found = cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "ledger"})
        found.ledger = Ledger.from_dict(data.get("ledger"))
        for goal in found.goals:  # an older record: its requests become the ledger's first
            if goal not in found.ledger.requests:
                found.ledger.requests.append(goal)
        found.goals = []
        return found

    def add_messages(self, messages: list[Message], all_messages: list[Message] | None = None) -> None:
        """Fold the facts of `messages` in; `all_messages` (default: the same) resolves tool calls by id."""
        calls = tool_calls_by_id(all_messages if all_messages is not None else messages)
        for m in messages:
            role, content = m.get("role"), m.get("content")
            text = content if isinstance(content, str) else ""
            if role == "user" and text and not text.startswith("[grove"):
                self.ledger.add_user(text)
            if role == "assistant" and text and not text.startswith("[grove"):
                self.ledger.add_assistant(text)
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                self._add_call(fn.get("name", ""), _args(fn.get("arguments")))
            if role == "tool" and text:
                name, raw = calls.get(m.get("tool_call_id", ""), (m.get("name") or "", ""))
                self._add_result(name, _args(raw), text)

    def _add_call(self, name: str, args: dict[str, Any]) -> None:
        path = args.get("path") or args.get("file") or args.get("filename")
        if isinstance(path, str) and path:
            target = self.files_written if any(w in name for w in WRITE_WORDS) else self.files_read
            _add(target, path, LIMITS["files_read"])
        if name == "todo" and isinstance(args.get("items"), list):
            self.todo = [
                {"content": str(i.get("content", "")), "status": str(i.get("status", "pending"))}
                for i in args["items"]
                if isinstance(i, dict)
            ]

    def _add_result(self, name: str, args: dict[str, Any], text: str) -> None:
        if text.startswith(PLACEHOLDER_PREFIX):
            return  # already folded in when it was pruned
        body = text.strip().split("\n", 1)[1] if _EXIT.match(text.strip()) and "\n" in text.strip() else text
        self.ledger.add_result(name, args, body)
        command = args.get("command") or args.get("cmd") or args.get("code")
        exit_code = _EXIT.match(text.strip())
        if name in SHELL_TOOLS and isinstance(command, str):
            code = exit_code.group(1) if exit_code else "?"
            _add(self.commands, f"{_clip(command, 160)} -> exit {code}", LIMITS["commands"], keep_first=0)
        failed = (exit_code and exit_code.group(1) != "0") or _ERROR.search(
            text.splitlines()[0] if text else ""
        )
        reading = any(w in name for w in READ_WORDS)  # an error word inside a file read is the file's text
        lines = [] if reading else facts.error_lines(body)
        if failed and not lines:
            lines = [next((ln for ln in text.splitlines() if _ERROR.search(ln)), text.splitlines()[-1])]
        where = f"{name} {_clip(command, 60)}" if isinstance(command, str) else name
        for line in lines:
            _add(self.errors, f"{where}: {_clip(line, 240)}", LIMITS["errors"])

    def render(self, budget_tokens: int = BIG_BUDGET, present: Callable[[str], bool] | None = None) -> str:
        """The facts, the ledger within ~`budget_tokens`; `present` says an item is already stated verbatim."""
        parts = ["## Facts recorded by grove (exact, from the messages)"]
        lists = self.files_read + self.files_written + self.commands + self.errors
        ledger = self.ledger.render(budget_tokens - _tokens(lists), present)
        if ledger:
            parts.append(ledger)
        if self.files_read:
            parts.append("Files read: " + ", ".join(self.files_read))
        if self.files_written:
            parts.append("Files written: " + ", ".join(self.files_written))
        if self.commands:
            parts.append("Commands run:\n" + "\n".join(f"- {c}" for c in self.commands))
        if self.errors:
            parts.append("Errors seen:\n" + "\n".join(f"- {e}" for e in self.errors))
        if self.todo:
            mark = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
            parts.append(
                "Todo list:\n"
                + "\n".join(f"- {mark.get(t['status'], '[ ]')} {t['content']}" for t in self.todo)
            )
        if len(parts) == 1:
            parts.append("(nothing recorded)")
        return "\n\n".join(parts)


def _tokens(items: list[str]) -> int:
    return sum(len(i) + 3 for i in items) // 4


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if raw else {}
    except (json.JSONDecodeError, TypeError):
        return {}
    return parsed if isinstance(parsed, dict) else {}
