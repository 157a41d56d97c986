"""`grove sessions list | show | search`: every past session, searchable (also as JSON)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load

if TYPE_CHECKING:
    from grove.store.sessions import SessionStore

app = typer.Typer(help="List, show and search past sessions.", no_args_is_help=True, rich_markup_mode=None)


@contextmanager
def _store() -> Iterator[SessionStore]:
    """The session store, closed when the command is done: left to the garbage collector, state.db stayed open
    (with its -wal and -shm files) in a process that runs commands in-process, like the tests."""
    from grove.store.sessions import SessionStore

    store = SessionStore.open(load().db_path)
    try:
        yield store
    finally:
        store.db.close()


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


@app.command("list")
def list_(
    limit: int = typer.Option(20, "--limit", "-n", help="How many, newest first."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List recent sessions, newest first."""
    with _store() as store:
        sessions = store.list_sessions(limit)
    if as_json:
        print(json.dumps([s.as_dict() for s in sessions], ensure_ascii=False))
        return
    if not sessions:
        print('no sessions yet; start one with `grove run "..."` or `grove chat`')
        return
    import shutil

    head = ("id", "updated", "model", "msgs", "tokens")
    rows = [
        (s.id, _when(s.updated_at), s.model, str(s.message_count), str(s.prompt_tokens + s.completion_tokens))
        for s in sessions
    ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    # ids are what people copy into --resume: never cut; only the title gives way on a narrow terminal
    room = max(shutil.get_terminal_size((100, 24)).columns - sum(w + 2 for w in widths), 10)
    print("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + "  title")
    for row, s in zip(rows, sessions, strict=True):
        title = " ".join((s.title or "").split())
        title = title if len(title) <= room else title[: room - 1] + "…"
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + "  " + title)


@app.command("show")
def show(
    session_id: str = typer.Argument(..., help="Session id, a unique prefix of one, or 'last'."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    all_messages: bool = typer.Option(False, "--all", help="Include compressed-away (inactive) messages."),
) -> None:
    """Show one session's messages."""
    with _store() as store:
        sid = store.resolve_id(session_id)
        info = store.get_session(sid)
        messages = store.messages(sid, active_only=not all_messages)
    if as_json:
        print(json.dumps({"session": info.as_dict(), "messages": messages}, ensure_ascii=False))
        return
    print(f"session {sid} · {info.model} · {_when(info.created_at)} · {info.title or ''}")
    for m in messages:
        if m.get("tool_calls"):
            for c in m["tool_calls"]:
                print(f"[assistant → {c['function']['name']}] {c['function']['arguments'][:200]}")
        if m.get("content"):
            label = m["role"] if m["role"] != "tool" else f"tool {m.get('name', '')}"
            print(f"[{label}] {m['content']}")


@app.command("search")
def search(
    query: str = typer.Argument(..., help="Words, a substring (any language) or a paraphrase to find."),
    limit: int = typer.Option(10, "--limit", "-n", help="Most sessions to return."),
    after: str = typer.Option(
        None, "--after", help="Only messages from then on: YYYY-MM-DD[THH:MM] or an age (3d)."
    ),
    before: str = typer.Option(None, "--before", help="Only messages before then (same forms)."),
    exclude: list[str] = typer.Option(
        None, "--exclude", "-x", help="Leave out messages with this word (repeat)."
    ),
    words_only: bool = typer.Option(False, "--words-only", help="Full-text only, even with [embeddings]."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Search all sessions by words and, with the [embeddings] extra, by meaning: one hit per session, best first."""
    from grove.embeddings.hybrid import BadWhen, parse_when, search_sessions

    try:
        span = parse_when(after), parse_when(before)
    except BadWhen as e:
        fail(str(e))
    with _store() as store:
        hits = search_sessions(
            store,
            query,
            limit=limit,
            after=span[0],
            before=span[1],
            exclude=exclude or (),
            semantic=not words_only,
        )
    if as_json:
        print(json.dumps([h.as_dict() for h in hits], ensure_ascii=False))
        return
    if not hits:
        fail(f"nothing found for {query!r}", code=1)
    for h in hits:
        print(f"{h.session_id}  {_when(h.created_at)}  [{h.role}, by {h.matched}] {h.snippet}")
