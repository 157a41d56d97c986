"""What a prompt is made of, through the real request path: every part of a request (system, memory, skills index,
tools, history, tool results) counted, the parts adding up to the provider's prompt tokens, cached vs fresh as it
reported them, in `grove run --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from typer.testing import CliRunner

from grove.cli.main import build_app

SKILL = (
    "---\nname: tidy-csv\ndescription: Tidy a CSV file: trim cells, drop empty rows.\n---\n# Steps\n1. read\n"
)


def _home(home: Path) -> None:
    (home / "memory").mkdir(parents=True, exist_ok=True)
    (home / "memory" / "MEMORY.md").write_text("The project uses tabs.\n", encoding="utf-8")
    (home / "skills" / "tidy-csv").mkdir(parents=True)
    (home / "skills" / "tidy-csv" / "SKILL.md").write_text(SKILL, encoding="utf-8")


def test_grove_run_json_shows_each_requests_parts_and_cached_tokens(
    grove_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(grove_home)
    monkeypatch.chdir(workspace)
    (workspace / "notes.txt").write_text("a note\n" * 50, encoding="utf-8")
    cached = {"prompt_tokens": 3000, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 2048}}
    replies = [
        FakeReply(
            tool_calls=[("read_file", {"path": "notes.txt"})],
            usage={"prompt_tokens": 2900, "completion_tokens": 9},
        ),
        FakeReply(text="It holds notes.", usage=cached),
    ]
    with FakeOpenAIServer() as srv:
        srv.queue(*replies)
        spec = f"openai-compat:gpt-4o-mini@{srv.url}"
        out = CliRunner().invoke(
            build_app(["run"]),
            ["run", "-m", spec, "-t", "files,skills,memory", "--json", "what is in notes.txt?"],
        )
    assert out.exit_code == 0, out.output
    first, second = json.loads(out.stdout)["prompt_composition"]
    for request in (first, second):
        assert request["parts"]["system"] > 0 and request["parts"]["memory"] > 0
        assert request["parts"]["skills_index"] > 0 and request["parts"]["tools"] > 0
        assert sum(request["parts"].values()) == request["prompt_tokens"]  # scaled to what was reported
        assert request["estimated"] is False
    assert first["parts"]["tool_results"] == 0 and second["parts"]["tool_results"] > 0
    assert first["prompt_tokens"] == 2900 and first["cached"] == 0
    assert second["prompt_tokens"] == 3000 and second["cached"] == 2048 and second["fresh"] == 952
