"""A conversation as a local chat template sees it: calls written back in the shape the model wrote them, tool
results as `<tool_response>` user turns (the Qwen2.5/Hermes convention), long results cut to fit a small window."""

from __future__ import annotations

import re
from typing import Any

from grove.llm.local_calls import TAGGED, CallFormat, render_call
from grove.llm.types import Message, ToolCall

# The exact reply in which a model wrote each call, by (name, arguments): history is rendered with the same
# bytes (shape, and any words around the call), so the next prompt extends the KV cache instead of diverging.
Replies = dict[tuple[str, str], str]


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # OpenAI content parts: keep the text ones (a small local model has no eyes).
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def result_chars(context_window: int) -> int:
    """How much of one tool result a model with this window reads: about a ninth of the window (3 chars a
    token), so a few results and the system prompt still fit, and a 1.5B model on 2 cores does not spend a
    minute reading one file."""
    return max(1_000, context_window * 3 // 9)


def trim_result(text: str, limit: int) -> str:
    """Head and tail of a long result with a marker between; the full text stays in the session's messages."""
    if limit <= 0 or len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    cut = len(text) - len(head) - len(tail)
    return (
        f"{head}\n[... {cut} characters cut to fit the context window (the full result is kept); "
        f"ask for a narrower part to see them ...]\n{tail}"
    )


_NUMBERED_RE = re.compile(r"^ *(\d+)\|(.*)$")


def unnumber(text: str) -> str:
    """A file read as numbered lines (`     1|4`), without the numbers: a small model takes `1|4` for data and
    writes back `14`. Only when every line but a trailing `[...]` note is numbered, consecutively."""
    lines = text.split("\n")
    body = lines[:-1] if len(lines) > 1 and lines[-1].startswith("[") else lines
    out, expect = [], None
    for line in body:
        m = _NUMBERED_RE.match(line)
        if m is None or (expect is not None and int(m.group(1)) != expect):
            return text
        out.append(m.group(2))
        expect = int(m.group(1)) + 1
    return "\n".join(out + lines[len(body) :])


def to_template_messages(
    messages: list[Message],
    tools_text: str,
    fmt: CallFormat = CallFormat(),
    replies: Replies | None = None,
    result_limit: int = 0,
) -> list[dict[str, str]]:
    """OpenAI-format messages -> plain {role, content} turns any chat template accepts.

    Assistant tool calls become the reply the model wrote them in (looked up in `replies`), else tagged calls; tool results become a user turn of `<tool_response>` blocks (consecutive results share one turn, so
    user/assistant keep alternating). Rendering only ever appends: the prompt of turn N is a byte-prefix of turn
    N+1's, so the KV cache is reused.
    """
    replies = replies or {}
    out: list[dict[str, str]] = []
    if tools_text and not (messages and messages[0].get("role") == "system"):
        out.append({"role": "system", "content": tools_text})
    for i, msg in enumerate(messages):
        role = msg.get("role", "user")
        text = _text_of(msg.get("content"))
        if role == "system" and i == 0 and tools_text:
            text = f"{text}\n\n{tools_text}" if text else tools_text
        elif role == "assistant" and msg.get("tool_calls"):
            keys = [
                (tc["function"]["name"], tc["function"].get("arguments") or "{}") for tc in msg["tool_calls"]
            ]
            if len(keys) == 1 and not text and keys[0] in replies:
                text = replies[keys[0]]
            else:
                calls = [render_call(name, args, TAGGED, fmt) for name, args in keys]
                text = "\n".join([text, *calls] if text else calls)
        elif role == "tool":
            block = f"<tool_response>\n{trim_result(unnumber(text), result_limit)}\n</tool_response>"
            if out and out[-1].get("_tool"):
                out[-1]["content"] += "\n" + block
                continue
            out.append({"role": "user", "content": block, "_tool": "1"})
            continue
        elif role not in ("system", "user", "assistant"):
            role = "user"
        out.append({"role": role, "content": text})
    return [{"role": m["role"], "content": m["content"]} for m in out]


def repeats_last_call(messages: list[Message], call: ToolCall) -> bool:
    """Whether `call` is the very call answered by the tool results at the end of the conversation."""
    i = len(messages)
    while i > 0 and messages[i - 1].get("role") == "tool":
        i -= 1
    if i == len(messages) or i == 0 or not messages[i - 1].get("tool_calls"):
        return False
    return any(_same_call(tc, call) for tc in messages[i - 1]["tool_calls"])


def _same_call(tc: dict[str, Any], call: ToolCall) -> bool:
    return tc["function"]["name"] == call.name and tc["function"].get("arguments") == call.arguments


def repeats_failed_call(messages: list[Message], call: ToolCall) -> bool:
    """Whether `call` was made before in this turn (since the last user message) and its result was an error: a
    small model retries the same wrong patch until its budget is gone."""
    results = {
        m.get("tool_call_id"): str(m.get("content") or "") for m in messages if m.get("role") == "tool"
    }
    for m in reversed(messages):
        if m.get("role") == "user":
            return False
        for tc in m.get("tool_calls") or []:
            if _same_call(tc, call) and results.get(tc.get("id"), "").startswith("Error"):
                return True
    return False
