"""`grove run` takes its prompt from standard input when it is piped, or when the prompt is `-`."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from tests.clirun import grove


@pytest.mark.parametrize("args", [[], ["-"]], ids=["piped", "dash"])
def test_prompt_from_stdin(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s.yaml").write_text("- text: got it\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("summarise this\nplease\n"))
    code, out, err = grove(capsys, "run", *args, "-m", f"script:{tmp_path}/s.yaml", "-t", "", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["answer"] == "got it"
    code, out, _ = grove(capsys, "sessions", "show", data["session_id"], "--json")
    first = json.loads(out)["messages"][0]
    assert (first["role"], first["content"]) == ("user", "summarise this\nplease\n")


def test_an_argument_wins_over_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s.yaml").write_text("- text: ok\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("ignored"))
    code, out, _ = grove(capsys, "run", "the question", "-m", f"script:{tmp_path}/s.yaml", "-t", "", "--json")
    session = json.loads(out)["session_id"]
    _, out, _ = grove(capsys, "sessions", "show", session, "--json")
    assert code == 0 and json.loads(out)["messages"][0]["content"] == "the question"
