"""A small local model's review of a file task: it writes the kind of task as a Python tool (`solve` and its tests
in one code block, its most natural output), kept as a code skill only when the tests pass in the sandbox; the next
task of that kind is then one call of a tool grove made (tools/learned.py) instead of several guesses."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

from grove.llm.types import Message

CODE_REVIEW_PROMPT = (
    "You are grove's reviewer. You turn a file task grove did into a reusable Python tool with tests, so that "
    "the next task of the same kind is one call."
)
CODE_REVIEW_ASK = """\
A user gave grove this task:
<task>
{request}
</task>
What the session read:
{samples}

Write a Python tool for every task of this kind: the same work with other files and values. For example, for the \
task "Count the lines of app.log that contain ERROR and write the count to errors.txt" the tool is:
```python
# name: count-matching-lines
# description: Count the lines of a text file that contain a word.


def solve(path: str, word: str) -> int:
    \"\"\"How many lines of the file contain the word.\"\"\"
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if word in line)


def test_solve(tmp_path):
    p = tmp_path / "app.log"
    p.write_text("ok\\nERROR one\\nERROR two\\n")
    assert solve(str(p), "ERROR") == 2
```
Rules: solve takes typed arguments (each input file's path as str, and each value that another task of this kind \
could change: a column, a key, a name, a text); it reads the files and RETURNS the result: a number, a list or dict \
(written as JSON), or the whole new text of the file to write (str). It never writes a file and never prints. \
Standard library only (csv, json, re, os; no pandas). test_solve(tmp_path) takes only tmp_path (a pathlib.Path: \
use p.write_text and p.read_text), writes a small input file, calls solve and asserts its exact result. Reply with \
one ```python block holding both functions, solve and test_solve, for the user's task."""
RETRY_ASK = "That tool was not kept: {why}\nReply with the whole fixed ```python block."
FILE_TOOLS = frozenset({"read_file", "write_file", "patch", "search_files", "list_files"})
MAX_ATTEMPTS = 3
MIN_VALUE_CHARS = 3  # shorter strings ('w', ',', '=') are format, not the task's values
STDLIB_NAMES = {
    **{
        m: f"import {m}" for m in ("json", "csv", "re", "os", "math", "glob", "io", "statistics", "itertools")
    },
    "Path": "from pathlib import Path",
    "defaultdict": "from collections import defaultdict",
    "Counter": "from collections import Counter",
    "Any": "from typing import Any",
}
RETRY_TEMPERATURE = 0.8
SAMPLE_LINES = 12
MAX_SAMPLES = 4
_CODE_START = re.compile(r"^(#|import |from |def |@)")
_FIELD = re.compile(r"^#\s*(name|description)\s*:\s*(.+?)\s*$", re.M | re.I)


@dataclass
class Draft:
    """A code skill as the model wrote it, split into the files create_code_skill takes."""

    name: str
    description: str
    code: str
    tests: str


def _calls_by_id(messages: list[Message]) -> dict[str, dict[str, Any]]:
    """The arguments of every tool call in the transcript, by call id."""
    found: dict[str, dict[str, Any]] = {}
    for m in messages:
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except (TypeError, json.JSONDecodeError):
                args = {}
            found[str(call.get("id"))] = args if isinstance(args, dict) else {}
    return found


def _ok(m: Message) -> bool:
    return not str(m.get("content") or "").startswith("Error")


def touched_files(messages: list[Message]) -> bool:
    """Whether the session worked on files with the file tools (read, searched, wrote): the sign of a file task
    that a tool could do, whether or not the session got it right."""
    return any(m.get("role") == "tool" and m.get("name") in FILE_TOOLS and _ok(m) for m in messages)


def used_tools(messages: list[Message], names: set[str], ok: bool = True) -> bool:
    """Whether one of the tools `names` was called in the session (`ok`: and answered without an error)."""
    return any(m.get("role") == "tool" and m.get("name") in names and (_ok(m) or not ok) for m in messages)


def request_of(messages: list[Message], limit: int = 1_500) -> str:
    """What the user asked in the session, the latest last, cut to `limit` characters."""
    asked = [str(m.get("content") or "").strip() for m in messages if m.get("role") == "user"]
    return "\n".join(a for a in asked if a)[-limit:]


def samples_of(messages: list[Message]) -> str:
    """The first lines of each file the session read, so the tool is written for the real format."""
    calls = _calls_by_id(messages)
    parts: list[str] = []
    seen: set[str] = set()
    for m in messages:
        if m.get("role") != "tool" or m.get("name") != "read_file" or not _ok(m):
            continue
        path = str(calls.get(str(m.get("tool_call_id")), {}).get("path") or "a file")
        if path in seen:
            continue  # the first read shows the file as the task found it
        seen.add(path)
        lines = str(m.get("content") or "").splitlines()[:SAMPLE_LINES]
        parts.append(f"{path}:\n" + "\n".join(re.sub(r"^\s*\d+\|", "", ln) for ln in lines))
        if len(parts) >= MAX_SAMPLES:
            break
    return "\n\n".join(parts) or "(no file read)"


def _name(raw: str, fallback: str) -> str:
    words = re.findall(r"[a-z0-9]+", (raw or fallback).lower())[:5]
    return "-".join(words)[:48].strip("-") or "learned-task"


def _source(text: str) -> str:
    """The code of a reply: its ```python block; a small model also opens without a fence, closes with one and
    explains after it, so a first fence with `def solve` above it closes the code instead of opening it."""
    lines = text.splitlines()
    fences = [i for i, ln in enumerate(lines) if ln.strip().startswith("```")]
    first = fences[0] if fences else len(lines)
    if not fences or any(ln.startswith("def solve") for ln in lines[:first]):
        begin = next((i for i, ln in enumerate(lines[:first]) if _CODE_START.match(ln)), 0)
        return "\n".join(lines[begin:first])
    end = fences[1] if len(fences) > 1 else len(lines)
    return "\n".join(lines[first + 1 : end])


def missing_imports(tree: ast.Module) -> list[str]:
    """Imports of standard modules the code uses but never imports (a small model's most common slip: its own
    fix repeats it), e.g. `json.load` without `import json`."""
    bound = {
        a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    bound |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    bound |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in (*n.args, *n.kwonlyargs)}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return [STDLIB_NAMES[name] for name in sorted(used - bound) if name in STDLIB_NAMES]


def hard_coded(solve: ast.FunctionDef, request: str) -> list[str]:
    """String values of solve's body that the user's request names (a column, a key, a file, a function name):
    a tool for the kind of task takes them as arguments, or it only redoes the one task it was written for."""
    doc = ast.get_docstring(solve)
    words = set(re.findall(r"[\w.#-]+", request))
    found = {
        n.value.strip()
        for n in ast.walk(solve)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value != doc
    }
    return sorted(v for v in found if len(v) >= MIN_VALUE_CHARS and (v in words or f"'{v}'" in request))


def split_reply(text: str, request: str) -> Draft | str:
    """The model's reply as a Draft, or what is wrong with it (said so it can be fixed): one python block with a
    `solve` and at least one `test_*` function; imports go to both files, tests import solve from the skill."""
    source = _source(text)
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return f"the code does not parse: line {e.lineno}: {e.msg}"
    lines = source.splitlines()
    imports, code, tests = list(missing_imports(tree)), [], []
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
        segment = "\n".join(lines[start : node.end_lineno])
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.append(segment)
        elif isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            tests.append(segment)
        elif isinstance(node, ast.Expr | ast.If):
            continue  # a docstring, a call of the tests, an `if __name__ == "__main__":` block
        else:
            code.append(segment)
    if not any(isinstance(n, ast.FunctionDef) and n.name == "solve" for n in tree.body):
        return "there is no top-level `def solve(...)`"
    if not tests:
        return "there is no test: add `def test_solve(tmp_path):` that calls solve and asserts its result"
    fields = {k.lower(): v for k, v in _FIELD.findall(source)}
    solve = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve")
    fixed = hard_coded(solve, request)
    if fixed:
        shown = ", ".join(repr(v) for v in fixed)
        return (
            f"solve hard-codes {shown} from this one task; make each an argument of solve (a typed parameter, "
            "e.g. def solve(path: str, column: str)) so that another task of this kind can pass its own value; "
            "test_solve passes the values itself and takes only tmp_path"
        )
    description = fields.get("description") or (ast.get_docstring(solve) or "").split("\n")[0] or request
    head = "\n".join(imports)
    return Draft(
        name=_name(fields.get("name", ""), description),
        description=" ".join(description.split())[:300],
        code="\n\n\n".join(p for p in (head, *code) if p) + "\n",
        tests="\n\n\n".join(["\n".join(["from skill import solve", *imports]), *tests]) + "\n",
    )


def draft_code_skill(agent: Any, messages: list[Message]) -> tuple[str, int]:
    """Ask `agent`'s model for the tool of the session `messages` (text only), create it through the agent's
    `skill_code_create` (the reviewer's: sandboxed tests, overlap check, change log), and on a failure ask again
    with the reason, at most MAX_ATTEMPTS times. Returns what happened and the number of model calls."""
    request = request_of(messages)
    text = CODE_REVIEW_ASK.format(request=request, samples=samples_of(messages))
    calls, why = 0, ""
    for _ in range(MAX_ATTEMPTS):
        agent.append({"role": "user", "content": text})
        # a retry is sampled: at temperature 0 a small model repeats the reply that failed, word for word
        warm = dataclasses.replace(agent.settings, temperature=RETRY_TEMPERATURE) if calls else None
        reply = agent.call_model(schemas=[], settings=warm).text
        calls += 1
        draft = split_reply(reply, request)
        if isinstance(draft, Draft):
            outcome = agent.tools.call(agent.ctx, "skill_code_create", vars(draft))
            if outcome.ok:
                return outcome.content, calls
            why = outcome.content.removeprefix("Error: ")
        else:
            why = draft
        if "already covers" in why or "exists already" in why:
            break  # the library has this kind of task: nothing to fix
        text = RETRY_ASK.format(why=why[:1_500])
    return f"nothing kept: {why}", calls
