"""Whether a reviewed session did its task, from what the reviewer can know: a verifier's label recorded for the
session (a batch or benchmark check), else the session's own record: an answer at the end, no give-up in it, its
last change not failed, no claim of it contradicted by its tool calls, and a change made when one was asked for."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from grove.atomic_files import atomic_write_text
from grove.llm.types import Message

CHANGE_TOOLS = frozenset({"write_file", "patch"})
# the request asks for a file to be made or changed (a question about files asks for none)
_ASKS_CHANGE = re.compile(
    r"\b(write|save|convert|rename|change|set|add|clean|extract|update|create|move|edit|replace|remove|"
    r"delete|fix|refactor|list)\b",
    re.I,
)
# how a learned tool (grove.tools.learned.said) reports a file it wrote
_LEARNED_WROTE = re.compile(r"^(wrote the result to |changed \S+; it now reads)", re.M)
# the answer says the task was not done
_GAVE_UP = re.compile(
    r"\b(could not|couldn't|cannot|can't|unable to|failed to|was not able|wasn't able|not possible|"
    r"i'm sorry|i apologi[sz]e)\b",
    re.I,
)


def verdicts_dir(home: Path) -> Path:
    return home / "verdicts"


def record_verdict(home: Path, session_id: str, passed: bool, detail: str = "") -> None:
    """Keep a verifier's label of a session, for its review to read (one small JSON file a session)."""
    path = verdicts_dir(home) / f"{session_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps({"passed": passed, "detail": detail}))


def recorded_verdict(home: Path, session_id: str) -> tuple[bool, str] | None:
    """The label recorded for the session, or None when no verifier looked at it."""
    try:
        data = json.loads((verdicts_dir(home) / f"{session_id}.json").read_text(encoding="utf-8"))
        return bool(data["passed"]), str(data.get("detail") or "")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _ok(m: Message) -> bool:
    return not str(m.get("content") or "").startswith("Error")


def _calls(messages: list[Message]) -> list[dict[str, Any]]:
    """Each tool call with its arguments and result, in order (the form grove.claims reads)."""
    args: dict[str, Any] = {}
    for m in messages:
        for c in m.get("tool_calls") or []:
            args[str(c.get("id"))] = (c.get("function") or {}).get("arguments") or "{}"
    return [
        {
            "name": m.get("name"),
            "arguments": args.get(str(m.get("tool_call_id")), "{}"),
            "ok": _ok(m),
            "content": str(m.get("content") or ""),
        }
        for m in messages
        if m.get("role") == "tool"
    ]


def _changed(call: dict[str, Any]) -> bool:
    """The call changed a file: a file tool's write, a learned tool's saved result, a shell command's write."""
    from grove.claims.record import SHELL_WRITE

    if not call["ok"]:
        return False
    if call["name"] in CHANGE_TOOLS or _LEARNED_WROTE.match(call["content"]):
        return True
    if call["name"] == "terminal":
        try:
            command = json.loads(call["arguments"]).get("command") or ""
        except (ValueError, AttributeError):
            command = ""
        return bool(SHELL_WRITE.search(str(command)))
    return False


# a file name in the request: a word with a dot and an extension that has a letter ("app.yaml", "pkg/settings.py")
# (a stem of two characters at least: "e.g." and "i.e." are no files)
_FILE_NAME = re.compile(r"(?<![\w/.-])(?:[\w./-]*/)?[\w-]{2,}\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,8}\b")


def _outputs_not_written(request: str, calls: list[dict[str, Any]]) -> str | None:
    """A file the request names that no call read or changed: what the task was to produce, left unmade (a
    session that patched app.ini but never wrote the app.yaml it was asked for)."""
    touched = " ".join(f"{c['arguments']} {c['content'] if _changed(c) else ''}" for c in calls)
    for name in dict.fromkeys(m.group(0).rstrip(".") for m in _FILE_NAME.finditer(request)):
        if Path(name).name not in touched:
            return name
    return None


def undone_reason(messages: list[Message]) -> str | None:
    """Why the session's own record says its task was not done, or None when nothing in it says so."""
    from grove.claims.turn import check_answer

    last = next((m for m in reversed(messages) if m.get("role") in ("assistant", "tool")), None)
    if last is None or last.get("role") != "assistant" or last.get("tool_calls"):
        return "the session ended without an answer (cut off, or stopped after a tool call)"
    answer = str(last.get("content") or "").strip()
    if not answer:
        return "the session ended without an answer"
    if _GAVE_UP.search(answer):
        return f"its answer says it was not done: {answer[:160]!r}"
    calls = _calls(messages)
    changes = [c for c in calls if c["name"] in CHANGE_TOOLS]
    if changes and not changes[-1]["ok"]:
        return f"its last change failed: {changes[-1]['content'][:160]!r}"
    request = " ".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    if _ASKS_CHANGE.search(request) and not any(_changed(c) for c in calls):
        return "the task asked for a change and no file was written"
    if _ASKS_CHANGE.search(request) and (missing := _outputs_not_written(request, calls)):
        return f"the task names {missing} and the session never read or wrote it"
    wrong = [v for v in check_answer(answer, calls) if v.label == "contradicted"]
    if wrong:
        return f"its tool record contradicts its answer: {wrong[0].claim.text[:120]!r} ({wrong[0].reason})"
    return None


def task_done(home: Path, session_id: str, messages: list[Message]) -> tuple[bool, str]:
    """(done, why): a recorded verifier label decides; without one, the session's own record."""
    label = recorded_verdict(home, session_id)
    if label is not None:
        passed, detail = label
        return passed, f"the verifier's label: {'passed' if passed else 'failed'}" + (
            f" ({detail})" if detail else ""
        )
    why = undone_reason(messages)
    return (why is None), (why or "its record shows the task done")
