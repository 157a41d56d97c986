"""A card's trajectory: the conversation of the worker session that finished it (the `session` event of its done
run names the session and the state.db it is in), system prompt first, as grove stores it (OpenAI format)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grove.kanban.leases import Leases
from grove.kanban.model import Task
from grove.llm.types import Message


@dataclass
class Trajectory:
    session_id: str
    messages: list[Message]


def finishing_session(board: Leases, task: Task) -> tuple[str, Path] | None:
    """The session of the attempt that finished the card (the last attempt when none did)."""
    done = [r.fence for r in board.runs(task.id) if r.outcome == "done"]
    sessions = [e for e in board.events(task.id) if e.kind == "session"]
    if not sessions:
        return None
    chosen = next((e for e in reversed(sessions) if e.data.get("fence") in done), sessions[-1])
    return str(chosen.data["session_id"]), Path(str(chosen.data["db"]))


def load(board: Leases, task: Task) -> Trajectory | None:
    """None when no worker session is recorded, or its state.db is on another host."""
    from grove.store.sessions import SessionNotFound, SessionStore

    found = finishing_session(board, task)
    if found is None or not found[1].is_file():
        return None
    session_id, db = found
    store = SessionStore.open(db)
    try:
        system = store.system_prompt(session_id)
        messages = store.messages(session_id)
    except SessionNotFound:
        return None
    finally:
        store.db.close()
    if system and not (messages and messages[0].get("role") == "system"):
        messages = [{"role": "system", "content": system}, *messages]
    return Trajectory(session_id, messages)
