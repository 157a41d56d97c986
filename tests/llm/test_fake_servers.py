"""The fake provider servers themselves: the standalone process (for CLI tests and benchmarks) and extra routes."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

from grove.llm.openai_compat import OpenAICompatModel
from grove.llm.types import ModelSettings

FAKES = Path(__file__).resolve().parents[1] / "fakes"
HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture
def spawn() -> Iterator:
    procs: list[subprocess.Popen] = []

    def start(script: str, *args: str) -> str:
        proc = subprocess.Popen(
            [sys.executable, str(FAKES / script), "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.poll() is not None else url  # type: ignore[union-attr]
        return url

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def test_standalone_openai_fake_answers_its_text_and_script(spawn, tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(
        json.dumps([{"tool_calls": [{"name": "read_file", "arguments": {"path": "x"}}]}, {"text": "second"}])
    )
    url = spawn("openai_server.py", "--text", "Hello!", "--script", str(script))
    assert url.endswith("/v1")
    model = OpenAICompatModel(name="fake", model="fake-model", base_url=url)
    first = model.complete(HELLO, [], ModelSettings(timeout=5))
    assert [(c.name, json.loads(c.arguments)) for c in first.tool_calls] == [("read_file", {"path": "x"})]
    assert model.complete(HELLO, [], ModelSettings(timeout=5)).text == "second"
    assert model.complete(HELLO, [], ModelSettings(timeout=5)).text == "Hello!"  # script used up: the default


def test_standalone_anthropic_fake_serves(spawn) -> None:
    from grove.llm.anthropic_model import AnthropicModel

    url = spawn("anthropic_server.py", "--text", "Bonjour")
    model = AnthropicModel(name="anthropic:fake", model="claude-fake", api_key="k", base_url=url)
    assert model.complete(HELLO, [], ModelSettings(timeout=5)).text == "Bonjour"


def test_models_route_and_request_log(openai_server: FakeOpenAIServer) -> None:
    with urllib.request.urlopen(f"{openai_server.url}/models", timeout=5) as r:
        listing = json.load(r)
    assert [m["id"] for m in listing["data"]] == ["fake-model"]
    assert [(r.method, r.path) for r in openai_server.requests] == [("GET", "/v1/models")]


def test_bad_requests_get_a_400_that_says_why(openai_server: FakeOpenAIServer) -> None:
    request = urllib.request.Request(
        f"{openai_server.url}/chat/completions",
        data=b'{"model": "m"}',
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=5)
    assert answer.value.code == 400 and "messages" in json.load(answer.value)["error"]["message"]


def test_script_entries_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown reply keys"):
        FakeReply.from_dict({"txt": "typo"})
