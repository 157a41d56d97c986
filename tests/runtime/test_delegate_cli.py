"""Delegation from the command line: `grove run --toolsets files,delegate` with a scripted model, the parent's
usage in `--json` and state.db, and `config set delegation.*` checked when set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.clirun import grove

from grove.config import load_settings
from grove.store.sessions import SessionStore

SCRIPT = """\
- tool_calls: [{name: delegate, arguments: {goal: "find the limit in config.txt"}}]
- tool_calls: [{name: read_file, arguments: {path: config.txt}}]
- text: "The limit is 42 (config.txt line 1).\\n\\nOpen questions:\\n- is it per user?"
- text: "The child says the limit is 42."
"""


def test_grove_run_delegates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "config.txt").write_text("limit = 42\n")
    script = tmp_path / "s.yaml"
    script.write_text(SCRIPT)
    monkeypatch.chdir(workspace)
    code, out, err = grove(
        capsys,
        "run",
        "-m",
        f"script:{script}",
        "--toolsets",
        "files,delegate",
        "--json",
        "what is the limit?",
    )
    assert code == 0, err
    payload = json.loads(out)
    assert payload["answer"] == "The child says the limit is 42."
    store = SessionStore.open(load_settings().db_path)
    (child,) = [s for s in store.list_sessions(10) if s.parent_id == payload["session_id"]]
    messages = store.messages(payload["session_id"])
    report = json.loads(next(str(m["content"]) for m in messages if m.get("name") == "delegate"))["children"][
        0
    ]
    assert report["result"] == "The limit is 42 (config.txt line 1)." and report["open_questions"] == [
        "is it per user?"
    ]
    tool_result = next(m for m in store.messages(child.id) if m["role"] == "tool")
    assert "limit = 42" in str(tool_result["content"])  # the child read the parent's workspace
    parent = store.get_session(payload["session_id"])
    assert child.model_calls == 2 and parent.model_calls == payload["own_model_calls"] + 2
    # --json counts the whole turn: the parent's own calls plus its child's, with a breakdown per child
    assert payload["model_calls"] == payload["own_model_calls"] + 2 == parent.model_calls
    (entry,) = payload["children"]
    assert entry["session_id"] == child.id and entry["model_calls"] == 2
    assert entry["usage"]["prompt_tokens"] == child.prompt_tokens > 0
    for key in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        assert payload["usage"][key] == payload["own_usage"][key] + entry["usage"][key]
    assert payload["usage"]["prompt_tokens"] == parent.prompt_tokens
    store.db.close()

    # resumed: the next turn's --json counts only that turn's children
    code, out, err = grove(
        capsys,
        "run",
        "-m",
        f"script:{script}",
        "--toolsets",
        "files,delegate",
        "--resume",
        payload["session_id"],
        "--json",
        "again?",
    )
    assert code == 0, err
    again = json.loads(out)
    assert len(again["children"]) == 1, again
    assert again["children"][0]["session_id"] != child.id
    assert again["model_calls"] == again["own_model_calls"] + 2


def test_config_set_checks_delegation_settings(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = grove(capsys, "config", "set", "delegation.model", "nope:x")
    assert code == 2 and "unknown model spec" in err
    code, _, err = grove(capsys, "config", "set", "delegation.max_parallel", "0")
    assert code == 2 and "greater than or equal to 1" in err
    code, _, _ = grove(capsys, "config", "set", "delegation.max_parallel", "2")
    assert code == 0 and load_settings().delegation.max_parallel == 2
