"""The `sessions` toolset: `session_search`, full-text recall over past sessions, or one past session read whole.

No model call: FTS5 ranking in state.db, one hit per session with a few messages around it, most relevant first.
"""

from __future__ import annotations

import time
from typing import Any

from grove.llm.types import Message
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

MAX_MESSAGE_CHARS = 600
MAX_READ_CHARS = 40_000


def _line(m: Message, limit: int = MAX_MESSAGE_CHARS) -> str:
    role = m["role"]
    text = m.get("content") or ""
    if m.get("tool_calls"):
        calls = ", ".join(
            f"{c['function']['name']}({c['function']['arguments'][:120]})" for c in m["tool_calls"]
        )
        text = (text + " " if text else "") + f"[calls {calls}]"
    if role == "tool":
        role = f"tool {m.get('name', '')}".strip()
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"  {role}: {text}"


def _read_session(ctx: ToolContext, store: Any, session_id: str, offset: int) -> str:
    from grove.store.sessions import SessionNotFound

    try:
        sid = store.resolve_id(session_id)
        info = store.get_session(sid)
    except SessionNotFound as e:
        raise ToolError(str(e)) from e
    messages = store.messages(sid)
    out = [
        f"session {sid} — {info.title or '(untitled)'} — {_date(info.created_at)}, {len(messages)} messages"
    ]
    used = len(out[0])
    start = max(0, offset)
    for i, m in enumerate(messages[start:], start):
        line = f"[{i}]" + _line(m, 2000)
        if used + len(line) > MAX_READ_CHARS:
            out.append(f"[cut here; read on with session_id={sid!r}, offset={i}]")
            break
        out.append(line)
        used += len(line)
    return "\n".join(out)


def _date(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def session_search(
    ctx: ToolContext, query: str = "", session_id: str | None = None, limit: int = 5, offset: int = 0
) -> str:
    """Recall past sessions: full-text search over everything said before (one hit per session, with context),
    or read one past session whole by its id.

    Args:
        query: words to look for (what was done, a file name, an error message)
        session_id: instead of searching, read this session (an id from a search hit)
        limit: how many sessions to return (at most 20)
        offset: with session_id, the first message to show (for long sessions)
    """
    store = ctx.store
    if store is None:
        raise ToolError("no session store in this context; session recall is unavailable")
    if session_id:
        return _read_session(ctx, store, session_id, offset)
    if not query.strip():
        raise ToolError("give a 'query' (words to search for) or a 'session_id' to read")
    hits = [
        h for h in store.search(query, limit=max(1, min(limit, 20)) + 1) if h.session_id != ctx.session_id
    ]
    hits = hits[: max(1, min(limit, 20))]
    if not hits:
        return f"no past session mentions '{query}'; try other or fewer words"
    blocks = []
    for n, hit in enumerate(hits, 1):
        head = (
            f"{n}. session {hit.session_id} — {hit.session_title or '(untitled)'} — {_date(hit.created_at)}"
        )
        context = [_line(m) for m in store.context_around(hit.message_id, before=2, after=2)]
        blocks.append("\n".join([head, *context]))
    blocks.append("(read a whole session with session_search(session_id=...))")
    return "\n\n".join(blocks)


def tools() -> list[Tool]:
    return [make_tool(session_search, toolset="sessions")]
