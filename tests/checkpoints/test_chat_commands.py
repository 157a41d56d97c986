"""`/undo` and `/rollback` in chat (the handler `grove chat` calls): list, undo, refuse over a user's edit."""

from __future__ import annotations

from pathlib import Path

from grove.checkpoints.store import CheckpointStore
from grove.cli.checkpoints import chat_command
from grove.config import Settings


def test_undo_and_rollback_in_chat(settings: Settings, workspace: Path) -> None:
    cps = CheckpointStore(settings.home, workspace, settings.checkpoints)
    (workspace / "a.txt").write_text("original")
    for text in ("one", "two"):
        cp = cps.take("s1", f"write {text}")
        (workspace / "a.txt").write_text(text)
        cps.seal(cp)
    said: list[str] = []
    chat_command("/rollback", "", workspace, said.append)
    assert "write two" in said[0] and "write one" in said[1]
    chat_command("/undo", "", workspace, said.append)
    assert (workspace / "a.txt").read_text() == "one"
    (workspace / "b.txt").write_text("b")
    cp = cps.take("s1", "write b")  # a turn after the undo
    (workspace / "b.txt").write_text("b2")
    cps.seal(cp)
    (workspace / "a.txt").write_text("mine")
    chat_command("/rollback", cps.list()[0].id, workspace, said.append)
    assert "refused" in said[-1] and "a.txt" in said[-1] and "--force" in said[-1]
    assert (workspace / "a.txt").read_text() == "mine"
    chat_command("/rollback", f"{cps.list()[0].id} --force", workspace, said.append)
    assert (workspace / "a.txt").read_text() == "original" and not (workspace / "b.txt").exists()
    chat_command("/undo", "x", workspace, said.append)
    assert "usage: /undo" in said[-1]


def test_rollback_across_an_undo_needs_no_force(settings: Settings, workspace: Path) -> None:
    cps = CheckpointStore(settings.home, workspace, settings.checkpoints)
    (workspace / "a.txt").write_text("original")
    for text in ("one", "two"):
        cp = cps.take("s1", f"write {text}")
        (workspace / "a.txt").write_text(text)
        cps.seal(cp)
    said: list[str] = []
    chat_command("/undo", "", workspace, said.append)
    chat_command("/rollback", cps.list()[0].id, workspace, said.append)
    assert (workspace / "a.txt").read_text() == "original", said
