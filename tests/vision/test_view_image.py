"""`view_image`: the picture reaches the model as an image part after the tool results, and the tool reads only
inside the workspace (no `..`, no symlink out), like the file tools."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.clirun import grove
from tests.fakes.multimodal import FakeVisionAnthropicServer, FakeVisionOpenAIServer, images_in
from tests.fakes.openai_server import FakeReply

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "shot.png").write_bytes(PNG)
    (tmp_path / "outside.png").write_bytes(PNG)
    os.symlink(tmp_path / "outside.png", ws / "link.png")
    monkeypatch.chdir(ws)
    return ws


def run_view(capsys: pytest.CaptureFixture[str], server: type, spec: str, path: str) -> tuple[int, list, str]:
    with server() as srv:
        srv.queue(FakeReply(tool_calls=[("view_image", {"path": path})]), FakeReply(text="done"))
        code, _, err = grove(capsys, "run", "-m", spec.format(url=srv.url), "-t", "vision", "look at it")
        return code, [r.body for r in srv.requests], err


def test_view_image_reaches_openai_as_an_image_part(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    code, bodies, err = run_view(capsys, FakeVisionOpenAIServer, "openai-compat:fake@{url}", "shot.png")
    assert code == 0, err
    last = bodies[-1]["messages"][-1]
    assert last["role"] == "user" and [p["type"] for p in last["content"]] == ["text", "image_url"]
    assert bodies[-1]["messages"][-2]["role"] == "tool"
    assert "not instructions" in last["content"][0]["text"]


def test_view_image_reaches_anthropic_as_an_image_block(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeVisionAnthropicServer() as srv:
        monkeypatch.setenv("GROVE_PROVIDERS__ANTHROPIC__BASE_URL", srv.url)
        srv.queue(FakeReply(tool_calls=[("view_image", {"path": "shot.png"})]), FakeReply(text="done"))
        code, _, err = grove(capsys, "run", "-m", "anthropic:claude-fake", "-t", "vision", "look at it")
        bodies = [r.body for r in srv.requests]
    assert code == 0, err
    turn = bodies[-1]["messages"][-1]["content"]  # tool result, note and image share one user turn
    assert [b["type"] for b in turn] == ["tool_result", "text", "image"]
    assert len(images_in(bodies[-1])) == 1


@pytest.mark.parametrize("path", ["../outside.png", "link.png"])
def test_view_image_stays_in_the_workspace(
    capsys: pytest.CaptureFixture[str], workspace: Path, path: str
) -> None:
    code, bodies, err = run_view(capsys, FakeVisionOpenAIServer, "openai-compat:fake@{url}", path)
    assert code == 0, err
    assert images_in(bodies[-1]) == []
    result = bodies[-1]["messages"][-1]
    assert result["role"] == "tool" and "Error" in result["content"]
