"""session_search: one hit per session with context, most relevant first, no hits from the current session or
from reviewer sessions, and reading a whole session by id."""

from __future__ import annotations

import json
from pathlib import Path

from grove.store.sessions import SessionStore
from grove.tools import sessions as session_tools
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry


def add_session(store: SessionStore, title: str, texts: list[str], source: str = "cli") -> str:
    sid = store.create_session("script", title=title, source=source)
    for i, text in enumerate(texts):
        store.add_message(sid, {"role": "user" if i % 2 == 0 else "assistant", "content": text})
    return sid


def search(
    store: SessionStore, workspace: Path, current: str | None = None, **args: object
) -> tuple[bool, str]:
    ctx = ToolContext(workspace=workspace, store=store, session_id=current)
    result = ToolRegistry(session_tools.tools()).call(ctx, "session_search", json.dumps(args))
    return result.ok, result.content


def test_hits_are_one_per_session_with_context(store: SessionStore, workspace: Path) -> None:
    a = add_session(
        store,
        "nginx",
        ["set up nginx", "which port?", "port 8080 please", "nginx now listens on 8080", "thanks"],
    )
    b = add_session(store, "postgres", ["the postgres backup failed", "disk was full; cleared it"])
    add_session(store, "review", ["nginx review notes"], source="review")
    ok, text = search(store, workspace, query="nginx 8080")
    assert ok and f"session {a}" in text and "nginx now listens on 8080" in text and "which port?" in text
    assert text.count(f"session {a}") == 1 and b not in text and "review notes" not in text
    ok, text = search(store, workspace, query="postgres backup")
    assert ok and text.startswith(f"1. session {b}") and "disk was full" in text


def test_current_session_is_left_out_and_misses_say_so(store: SessionStore, workspace: Path) -> None:
    a = add_session(store, "x", ["the zebra project"])
    ok, text = search(store, workspace, current=a, query="zebra")
    assert ok and "no past session mentions 'zebra'" in text
    ok, text = search(store, workspace)
    assert not ok and "give a 'query'" in text


def test_read_a_whole_session_by_id_and_page_it(store: SessionStore, workspace: Path) -> None:
    sid = add_session(store, "long", [f"message number {i}" for i in range(6)])
    ok, text = search(store, workspace, session_id=sid[:12])
    assert ok and f"session {sid} — long" in text and "[0]  user: message number 0" in text
    assert "[5]  assistant: message number 5" in text
    ok, text = search(store, workspace, session_id=sid, offset=4)
    assert ok and "message number 3" not in text and "message number 4" in text
    ok, text = search(store, workspace, session_id="nope")
    assert not ok and "no session 'nope'" in text
