"""What a turn's children cost: the delegate sessions started under a parent during one turn, read back from
state.db (a child's row already holds its own children's usage), for `grove run --json`."""

from __future__ import annotations

from typing import Any

from grove.runtime.children import SOURCE


def child_ids(store: Any, parent_id: str) -> set[str]:
    """The delegate sessions opened directly under `parent_id` so far."""
    with store.db.lock:
        rows = store.db.conn.execute(
            "SELECT id FROM sessions WHERE parent_id = ? AND source = ?", (parent_id, SOURCE)
        ).fetchall()
    return {str(r["id"]) for r in rows}


def turn_children(store: Any, parent_id: str, before: set[str]) -> list[dict[str, Any]]:
    """One entry per child opened since `before` was taken (oldest first): its id, title, model calls, tokens
    and cost, grandchildren included."""
    out = []
    for sid in child_ids(store, parent_id) - before:
        info = store.get_session(sid)
        out.append(
            {
                "session_id": info.id,
                "goal": info.title,
                "model_calls": info.model_calls,
                "usage": {
                    "prompt_tokens": info.prompt_tokens,
                    "completion_tokens": info.completion_tokens,
                    "cached_tokens": info.cached_tokens,
                },
                "cost_usd": round(info.cost_usd, 6),
                "_created": info.created_at,
            }
        )
    out.sort(key=lambda c: (c["_created"], c["session_id"]))
    for c in out:
        del c["_created"]
    return out
