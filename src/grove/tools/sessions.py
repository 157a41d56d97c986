"""The `sessions` toolset: `session_search`, recall over sessions by words and meaning, or one session read whole.

No model call: FTS5 ranking and, with the `[embeddings]` extra, vector similarity in state.db
(grove.embeddings.hybrid), one hit per session with a few messages around it, most relevant first.
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
    scope = store.sessions_like_owner(ctx.session_id) if ctx.session_id else None
    if scope is not None and sid not in scope:  # another serve key's session is as unknown as a missing one
        raise ToolError(f"no session {session_id!r}")
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
    ctx: ToolContext,
    query: str = "",
    session_id: str | None = None,
    limit: int = 5,
    offset: int = 0,
    after: str | None = None,
    before: str | None = None,
    exclude: list[str] | None = None,
) -> str:
    """Recall sessions by words and meaning (one hit per session, with context; this session's messages that left
    your context too), or read one session whole by its id.

    Args:
        query: what to look for (what was done, a file name, an error message; any wording)
        session_id: instead of searching, read this session (an id from a search hit)
        limit: how many sessions to return (at most 20)
        offset: with session_id, the first message to show (for long sessions)
        after: only messages since: YYYY-MM-DD[THH:MM] or an age (12h, 3d)
        before: only messages before (same forms)
        exclude: leave out messages with any of these words
    """
    from grove.embeddings.hybrid import BadWhen, parse_when, search_sessions

    store = ctx.store
    if store is None:
        raise ToolError("no session store in this context; session recall is unavailable")
    if session_id:
        return _read_session(ctx, store, session_id, offset)
    if not query.strip():
        raise ToolError("give a 'query' (words to search for) or a 'session_id' to read")
    try:
        span = parse_when(after), parse_when(before)
    except BadWhen as e:
        raise ToolError(str(e)) from e
    hits = search_sessions(
        store,
        query,
        limit=max(1, min(limit, 20)),
        after=span[0],
        before=span[1],
        exclude=exclude or (),
        current_session=ctx.session_id,
    )
    if not hits:
        span_note = " in that span" if after or before else ""
        return f"no session mentions '{query}'{span_note}; try other or fewer words"
    blocks = []
    for n, hit in enumerate(hits, 1):
        where = "this session (out of your context)" if hit.session_id == ctx.session_id else "session"
        head = (
            f"{n}. {where} {hit.session_id} — {hit.session_title or '(untitled)'} — {_date(hit.created_at)}"
            f" [by {hit.matched}]"
        )
        context = [_line(m) for m in store.context_around(hit.message_id, before=2, after=2)]
        blocks.append("\n".join([head, *context]))
    blocks.append("(read a whole session with session_search(session_id=...))")
    return "\n\n".join(blocks)


def tools() -> list[Tool]:
    return [make_tool(session_search, toolset="sessions")]
