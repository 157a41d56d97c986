"""The goal's whole history as the judge reads it: every turn since the goal began, read from state.db (so turns
the live context compressed away are still there), folded to fit a character budget. The latest turn stays in
full; older turns shrink to briefs, and the oldest to the exact facts grove.context's skeleton reads off them
(files read and written, commands and exits, errors) under the goal's first request."""

from __future__ import annotations

import re

from grove.context.prune import short_args
from grove.context.skeleton import Skeleton
from grove.context.summary import SUMMARY_MARKER
from grove.llm.types import Message
from grove.store.sessions import SessionStore

FULL = (1500, 600, 3000)  # request, tool result, answer: characters kept per item in a turn shown in full
BRIEF = (200, 0, 300)  # a brief: the request and the answer's start, the calls by name and arguments
RECENT_SHARE = 0.5  # of the budget, for the latest turns in full (the latest always, cut if it must be)
BRIEF_SHARE = 0.3  # for briefs of the turns before them; the rest for the facts of the oldest
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_VALUE = re.compile(r"\w\s*[=:]\s*\S|\d")
_DECISION = re.compile(
    r"\b(decid\w*|chose|chosen|choose|because|instead|rather than|must|never|always|will not|won't|root cause)\b",
    re.IGNORECASE,
)


def goal_messages(store: SessionStore, session_id: str, since: float) -> list[Message]:
    """The session's messages written at or after `since` (the goal's creation), in conversation order,
    including those compression took out of the live context; compression's stand-ins are left out."""
    with store.db.lock:
        row = store.db.conn.execute(
            "SELECT MIN(id) FROM messages WHERE session_id = ? AND created_at >= ? AND position IS NULL",
            (session_id, since),
        ).fetchone()
    first = row[0] if row and row[0] is not None else None
    if first is None:
        return []
    return [
        m
        for mid, place, m in store.context_entries(session_id, active_only=False)
        if mid == place and mid >= first and not str(m.get("content") or "").startswith(SUMMARY_MARKER)
    ]


def split_turns(messages: list[Message]) -> list[list[Message]]:
    """Turns: each user message and what followed it, up to the next user message."""
    turns: list[list[Message]] = []
    for m in messages:
        if m.get("role") == "system":
            continue
        if m.get("role") == "user" or not turns:
            turns.append([])
        turns[-1].append(m)
    return turns


def render_turn(turn: list[Message], limits: tuple[int, int, int] = FULL) -> str:
    request_chars, result_chars, answer_chars = limits
    lines: list[str] = []
    for m in turn:
        role, text = m.get("role"), str(m.get("content") or "")
        if role == "user":
            lines.append(f"REQUEST: {_clip(text, request_chars)}")
        elif role == "tool" and result_chars:
            lines.append(f"RESULT ({m.get('name') or 'tool'}): {_clip(text, result_chars)}")
        elif role == "assistant":
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                lines.append(f"CALL {fn.get('name', '?')}({short_args(fn.get('arguments') or '')})")
            if text:
                lines.append(f"AGENT: {_clip(text, answer_chars)}")
                kept = _fact_sentences(text[answer_chars:]) if len(text) > answer_chars else []
                if kept:
                    lines.append("AGENT (facts from the part cut above): " + " ".join(kept))
    return "\n".join(lines)


def _fact_sentences(text: str, limit: int = 6) -> list[str]:
    """Sentences of a cut-away answer worth keeping: a value (`KEY = 3`, a number), a decision or a reason."""
    found: list[str] = []
    for sentence in _SENTENCE.split(text):
        s = " ".join(sentence.split())
        if 8 <= len(s) <= 300 and (_VALUE.search(s) or _DECISION.search(s)) and s not in found:
            found.append(s)
            if len(found) >= limit:
                break
    return found


def render_history(messages: list[Message], budget: int) -> str:
    """All turns in full when they fit in `budget` characters; else latest turns in full, briefs before them,
    and the exact facts of the oldest under the first request. Never longer than `budget`."""
    turns = split_turns(messages)
    if not turns:
        return "(no work recorded yet)"
    full = [render_turn(t) for t in turns]
    whole = _join(full)
    if len(whole) <= budget:
        return whole
    recent: list[str] = [_cut(full[-1], int(budget * RECENT_SHARE))]
    room = int(budget * RECENT_SHARE) - len(recent[0])
    k = len(turns) - 1  # turns[k:] are shown in full
    while k > 0 and len(full[k - 1]) + 2 <= room:
        k -= 1
        room -= len(full[k]) + 2
        recent.insert(0, full[k])
    briefs: list[str] = []
    room += int(budget * BRIEF_SHARE)
    j = k  # turns[j:k] get briefs
    while j > 0:
        brief = render_turn(turns[j - 1], BRIEF)
        if len(brief) + 2 > room:
            break
        j -= 1
        room -= len(brief) + 2
        briefs.insert(0, brief)
    parts = []
    if briefs:
        parts.append(f"BRIEFS OF TURNS {j + 1}-{k} (requests and answers cut short):\n" + _join(briefs))
    parts.append(_join(recent))
    if j > 0:
        spare = budget - len(_join(parts)) - 2
        parts.insert(0, _folded([m for t in turns[:j] for m in t], j, spare))
    return _join(parts)[:budget]


def _folded(older: list[Message], count: int, room: int) -> str:
    """The oldest turns as facts within `room` characters: the first request, files, commands and errors first
    (never cut before the rest), then the rest of what the skeleton holds (its fact ledger, when it has one)."""
    facts = Skeleton()
    facts.add_messages(older)
    first = next((m for m in older if m.get("role") == "user"), None)
    lines = [f"EARLIER TURNS (the first {count}, folded to fit; the facts below are exact):"]
    if first is not None:
        lines.append(f"FIRST REQUEST: {_clip(str(first.get('content') or ''), FULL[0])}")
    if facts.files_written:
        lines.append("Files written: " + ", ".join(facts.files_written))
    if facts.files_read:
        lines.append("Files read: " + ", ".join(facts.files_read))
    lines += [f"Command: {c}" for c in facts.commands] + [f"Error: {e}" for e in facts.errors]
    lines += [f"Request: {g}" for g in getattr(facts, "goals", [])[1:]]
    text = "\n".join(lines)
    ledger = getattr(
        facts, "ledger", None
    )  # decisions, values and constraints, where the skeleton keeps them
    left = room - len(text) - 2
    if ledger is not None and left > 200:
        text += "\n" + ledger.render(left // 4)  # ~4 characters a token
    return text if len(text) <= room else text[: max(room - 1, 0)] + "…"


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _cut(text: str, limit: int) -> str:
    """`text` within `limit`: its start (the request) and its end (the answer) kept, the middle left out."""
    if len(text) <= limit:
        return text
    marker = "\n[… middle of the turn left out …]\n"
    head = max(0, min(len(text), limit // 4))
    tail = max(0, limit - head - len(marker))
    return text[:head] + marker + text[len(text) - tail :] if tail else text[:limit]
