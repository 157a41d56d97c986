"""`grove run --json` says which untrusted sources the turn read: the pages by URL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.clirun import grove
from tests.fakes.web_server import FakeWeb


def test_json_names_the_pages_read(
    web: FakeWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = web.url("/article/night-trains")
    script = tmp_path / "steps.yaml"
    script.write_text(
        yaml.safe_dump([{"tool_calls": [{"name": "web_fetch", "arguments": {"url": url}}]}, {"text": "ok"}])
    )
    monkeypatch.setenv("GROVE_WEB__ALLOW_HOSTS", '["127.0.0.1"]')
    monkeypatch.chdir(tmp_path)
    code, out, err = grove(capsys, "run", "read it", "-m", f"script:{script}", "-t", "web", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["untrusted_sources"] == [f"web_fetch of {url}"]
    assert data["tool_calls"] == [{"name": "web_fetch", "arguments": {"url": url}, "ok": True}]
