"""Repeated work in a transcript: code a session wrote and ran more than once (the same inline script, or the same
code with other values, or one script file run again and again), the sign that a code skill would pay. Read
straight off the tool calls, no model; the reviewer is shown what it finds."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from grove.llm.types import Message

SHELL_TOOLS = ("terminal", "shell", "bash", "run_command")
CODE_TOOLS = ("execute_code", "python", "run_python")
CODE_EXTENSIONS = (".py", ".sh", ".js", ".mjs", ".ts", ".rb", ".pl", ".r", ".sql", ".awk", ".jq")
INTERPRETERS = re.compile(r"^(python3?|node|ruby|perl|bash|sh|Rscript|php)$")
MIN_CHARS = 60  # shorter snippets (`ls`, `pytest -q`) are not worth a skill
SHOWN_CHARS = 1500
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\1\b", re.DOTALL)
_STRING = re.compile(r"'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"", re.DOTALL)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_COMMENT = re.compile(r"#[^\n]*")  # after strings are gone, so a '#' inside one is not taken for a comment


@dataclass
class Repeat:
    """One piece of code the session ran `runs` times (with values that may differ)."""

    code: str  # the first version seen
    runs: int
    tools: list[str] = field(default_factory=list)
    values_differ: bool = False


def fingerprint(code: str) -> str:
    """The code's shape: comments, string and number literals and whitespace leave no trace."""
    shape = _STRING.sub("S", code)
    shape = _COMMENT.sub("", shape)
    shape = _NUMBER.sub("N", shape)
    return " ".join(shape.split())


def _inline_code(command: str) -> str | None:
    """The program text of a shell command that carries one: a heredoc fed to an interpreter, `python -c ...`,
    `node -e ...`; else the command itself when it is a long or multi-line script."""
    heredoc = _HEREDOC.search(command)
    if heredoc:
        return heredoc.group(2)
    try:
        words = shlex.split(command)
    except ValueError:
        words = []
    for i, word in enumerate(words[:-2]):
        if INTERPRETERS.match(word.rsplit("/", 1)[-1]) and words[i + 1] in ("-c", "-e"):
            return words[i + 2]
    return command if "\n" in command.strip() or len(command) >= 2 * MIN_CHARS else None


def _script_run(command: str) -> str | None:
    """The script file a command runs with an interpreter (`python3 tools/report.py --month 3`), or None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, word in enumerate(words[:-1]):
        if INTERPRETERS.match(word.rsplit("/", 1)[-1]):
            nxt = words[i + 1]
            if nxt.endswith(CODE_EXTENSIONS):
                return nxt.removeprefix("./")
            return None
    return None


def _args(raw: Any) -> dict[str, Any]:
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except (json.JSONDecodeError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def find_repeats(messages: list[Message], min_runs: int = 2) -> list[Repeat]:
    """Code run at least `min_runs` times in `messages`, most repeated first."""
    written: dict[str, str] = {}  # script path -> its latest content
    groups: dict[str, Repeat] = {}
    seen: dict[str, set[str]] = {}
    for m in messages:
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            name, args = str(fn.get("name") or ""), _args(fn.get("arguments"))
            code: str | None = None
            if name in SHELL_TOOLS and isinstance(args.get("command"), str):
                script = _script_run(args["command"])
                code = written.get(script) if script else _inline_code(args["command"])
            elif name in CODE_TOOLS and isinstance(args.get("code"), str):
                code = args["code"]
            elif "write" in name and str(args.get("path", "")).endswith(CODE_EXTENSIONS):
                written[str(args["path"]).removeprefix("./")] = str(args.get("content") or "")
            if not code or len(code.strip()) < MIN_CHARS:
                continue
            key = fingerprint(code)
            group = groups.setdefault(key, Repeat(code=code.strip(), runs=0))
            group.runs += 1
            if name not in group.tools:
                group.tools.append(name)
            variants = seen.setdefault(key, set())
            variants.add(code.strip())
            group.values_differ = len(variants) > 1
    found = [g for g in groups.values() if g.runs >= min_runs]
    return sorted(found, key=lambda g: -g.runs)


def render_repeats(repeats: list[Repeat], limit: int = 3) -> str:
    """The reviewer's hint: what was repeated, and that a code skill would make it one call next time."""
    if not repeats:
        return ""
    parts = [
        "## Repeated code (counted by grove from the tool calls)\n"
        "The session wrote and ran the same code more than once. If it is a general sub-task, make it a code "
        "skill with skill_code_create: a `solve(...)` with typed arguments for what changed between runs, and "
        "tests; the next session then calls it with skill_run instead of writing it again."
    ]
    for r in repeats[:limit]:
        how = "with different values" if r.values_differ else "unchanged"
        code = r.code if len(r.code) <= SHOWN_CHARS else r.code[:SHOWN_CHARS] + "\n# … cut"
        parts.append(f"Ran {r.runs} times ({how}; via {', '.join(r.tools)}):\n```\n{code}\n```")
    return "\n\n".join(parts)
