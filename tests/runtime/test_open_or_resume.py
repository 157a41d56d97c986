"""Session.open_or_resume, the one resume-or-open of every entrance that keeps conversations (gateway, serve): the
stored session goes on with its messages; none, or one deleted since, opens a new session."""

from __future__ import annotations

from pathlib import Path

from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session
from grove.store.sessions import SessionStore


def profile(workspace: Path, *replies: str) -> Profile:
    return Profile(source="webhook", toolsets=[], workspace=workspace, model=ScriptModel(list(replies)))


def test_a_stored_conversation_is_resumed_with_its_messages(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    first, resumed = Session.open_or_resume(settings, profile(workspace, "one"), None, store=store)
    assert not resumed
    first.run_turn("remember the word plum")
    first.close()
    again, resumed = Session.open_or_resume(settings, profile(workspace, "two"), first.id, store=store)
    try:
        assert resumed and again.id == first.id
        assert "remember the word plum" in [m.get("content") for m in again.agent.messages]
    finally:
        again.close()


def test_a_session_deleted_since_opens_a_new_one(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    session, resumed = Session.open_or_resume(settings, profile(workspace), "0123456789abcdef", store=store)
    try:
        assert not resumed and session.id != "0123456789abcdef"
        assert session.profile.resume is None
        assert [m["role"] for m in session.agent.messages] == ["system"]
    finally:
        session.close()
