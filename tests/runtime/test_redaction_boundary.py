"""Secrets never reach state.db, a model request or the terminal, wherever they enter: the project's AGENTS.md
(the system prompt), the user's own text (also the session title), a file a tool reads, or the model's reply.

Uses the red-team secrets corpora (tests/security/redteam/secrets*.jsonl): realistic secrets in realistic text,
all of a corpus at once in every place (harder than one at a time: their contexts run into each other)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from grove.cli.output import TerminalEvents
from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.llm.types import Message, ToolSchema
from grove.runtime import Profile, Session
from grove.runtime.stream import EventStream

REDTEAM = Path(__file__).resolve().parents[1] / "security" / "redteam"


def secrets(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (REDTEAM / name).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("corpus", ["secrets.jsonl", "secrets_heldout.jsonl"])
def test_no_secret_leaks_from_any_entry_point(
    settings: Settings, workspace: Path, capsys: pytest.CaptureFixture[str], corpus: str
) -> None:
    samples = secrets(corpus)
    texts = "\n\n".join(s["text"] for s in samples)
    (workspace / "AGENTS.md").write_text("# Project notes\n\n" + texts)
    (workspace / "dump.txt").write_text(texts)
    requests: list[str] = []

    def model(messages: list[Message], tools: list[ToolSchema]) -> dict:
        requests.append(json.dumps(messages))
        if len(requests) == 1:
            return {"tool_calls": [{"name": "read_file", "arguments": {"path": "dump.txt", "limit": 2000}}]}
        return {"text": "Here is what I found:\n" + texts}

    profile = Profile(workspace=workspace, toolsets=["files"], model=ScriptModel(model))
    session = Session.open(settings, profile, EventStream(TerminalEvents(stream_text=True)))
    result = session.run_turn("Please check these:\n" + texts)
    session.close()
    screen = capsys.readouterr()
    with sqlite3.connect(settings.db_path) as db:
        stored = "\n".join(db.iterdump())
    places = {"state.db": stored, "requests": "\n".join(requests), "terminal": screen.out + screen.err}
    places["answer"] = result.answer
    leaks = {name: [s["id"] for s in samples if s["secret"] in text] for name, text in places.items()}
    worst = max(len(ids) for ids in leaks.values())
    assert worst <= len(samples) // 100, f"leaked ({len(samples)} secrets): {leaks}"
    assert len(requests) == 2 and "Here is what I found" in result.answer  # the run itself went through
