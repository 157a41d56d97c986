"""The Anthropic provider's stdlib transport: start-up cost, headers, and parity with the SDK (same bytes sent, same
Completion read)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeReply, Handler
from tests.llm.samples import FAST, TOOLS

import grove
from grove.config import ProviderConfig, Settings
from grove.llm.anthropic_model import AnthropicModel
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.spec import build_model
from grove.llm.types import Completion, ModelSettings, ToolCall

ROOT = Path(__file__).resolve().parents[2]
HELLO = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "héllo ✓"}]
# A tool round trip, so the body holds tool_use / tool_result blocks and both cache breakpoints.
CONVERSATION = [
    *HELLO,
    Completion(
        text="Reading.", tool_calls=[ToolCall("toolu_a", "read_file", '{"path": "ä.txt"}')]
    ).to_message(),
    {"role": "tool", "tool_call_id": "toolu_a", "content": "alpha"},
]


class RawAnthropicServer(FakeAnthropicServer):
    """Answers every request with HTTP 200 and `raw` as the body, whatever it holds."""

    raw = ""

    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        h.send_json(200, self.raw)


@pytest.fixture
def raw_server() -> Iterator[RawAnthropicServer]:
    with RawAnthropicServer() as srv:
        yield srv


def model_for(url: str, transport: str = "http", api_key: str | None = "sk-ant-test") -> AnthropicModel:
    return AnthropicModel(
        name="anthropic:claude-test", model="claude-test", api_key=api_key, base_url=url, transport=transport
    )


def test_a_one_shot_model_never_imports_the_sdk(
    anthropic_server: FakeAnthropicServer, tmp_path: Path
) -> None:
    anthropic_server.queue(FakeReply(text="no sdk"), FakeReply(text="streamed"))
    code = (
        "import sys\n"
        "from grove.config import ProviderConfig, Settings\n"
        "from grove.llm.spec import build_model\n"
        "from grove.llm.types import ModelSettings\n"
        "settings = Settings(home=sys.argv[1], providers={'anthropic': ProviderConfig(base_url=sys.argv[2])})\n"
        "model = build_model('anthropic:claude-test', settings)\n"
        "hi = [{'role': 'user', 'content': 'hi'}]\n"
        "plain = model.complete(hi, [], ModelSettings(timeout=5))\n"
        "streamed = model.complete(hi, [], ModelSettings(timeout=5), on_text=lambda _: None)\n"
        "print(model.transport, plain.text, streamed.text, 'anthropic' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GROVE_", "ANTHROPIC_"))}
    env["GROVE_HOME"] = str(tmp_path)
    env["ANTHROPIC_API_KEY"] = "sk-ant-sub"
    run = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), anthropic_server.url],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["http", "no", "sdk", "streamed", "False"]
    assert [r.headers.get("x-api-key") for r in anthropic_server.requests] == ["sk-ant-sub"] * 2


@pytest.mark.parametrize(
    ("setting", "long_lived", "expected"),
    [("auto", False, "http"), ("auto", True, "sdk"), ("sdk", False, "sdk"), ("http", True, "http")],
)
def test_auto_means_the_sdk_only_for_long_lived_sessions(
    setting: str, long_lived: bool, expected: str, tmp_path: Path
) -> None:
    config = ProviderConfig(base_url="http://127.0.0.1:9", transport=setting)  # type: ignore[arg-type]
    settings = Settings(home=tmp_path, providers={"anthropic": config})
    model = build_model("anthropic:claude-test", settings, long_lived=long_lived)
    assert isinstance(model, AnthropicModel) and model.transport == expected


def test_headers_carry_the_key_only_when_there_is_one(anthropic_server: FakeAnthropicServer) -> None:
    model_for(anthropic_server.url, api_key=None).complete(HELLO, [], FAST)  # a keyless proxy at base_url
    model_for(anthropic_server.url).complete(HELLO, [], FAST)
    keyless, keyed = (r.headers for r in anthropic_server.requests)
    assert "x-api-key" not in keyless and "authorization" not in keyless
    assert keyed["x-api-key"] == "sk-ant-test" and "authorization" not in keyed
    for headers in (keyless, keyed):
        assert headers["user-agent"] == f"grove/{grove.__version__}"
        assert headers["content-type"] == "application/json" and headers["accept"] == "application/json"


def test_the_url_is_the_base_plus_v1_messages(anthropic_server: FakeAnthropicServer) -> None:
    model_for(anthropic_server.url + "/").complete(HELLO, [], FAST)
    model_for(anthropic_server.url).complete(HELLO, [], FAST, on_text=lambda _: None)
    assert [r.path for r in anthropic_server.requests] == ["/v1/messages"] * 2
    assert anthropic_server.requests[1].headers["accept"] == "text/event-stream"


@pytest.mark.parametrize("transport", ["sdk", "http"])
def test_without_a_base_url_both_transports_use_anthropic_base_url(
    anthropic_server: FakeAnthropicServer, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    model = AnthropicModel(name="a", model="claude-test", api_key="sk-ant-test", transport=transport)
    assert model.complete(HELLO, [], FAST).text == "ok"
    assert anthropic_server.requests[0].path == "/v1/messages"


def test_a_200_that_is_not_json_is_a_server_error(raw_server: RawAnthropicServer) -> None:
    raw_server.raw = "<html>502 Bad Gateway</html>"
    with pytest.raises(ModelError) as info:
        model_for(raw_server.url).complete(HELLO, [], FAST)
    assert info.value.kind is ErrorKind.SERVER_ERROR and "502 Bad Gateway" in info.value.message


def test_a_stream_event_that_is_not_json_is_a_server_error(raw_server: RawAnthropicServer) -> None:
    raw_server.raw = "event: message_start\ndata: {not json\n\n"
    with pytest.raises(ModelError) as info:
        model_for(raw_server.url).complete(HELLO, [], FAST, on_text=lambda _: None)
    assert info.value.kind is ErrorKind.SERVER_ERROR and "not JSON" in info.value.message


@pytest.mark.parametrize("transport", ["sdk", "http"])
def test_a_200_error_object_is_classified(raw_server: RawAnthropicServer, transport: str) -> None:
    raw_server.raw = json.dumps(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    with pytest.raises(ModelError) as info:
        model_for(raw_server.url, transport).complete(HELLO, [], FAST)
    assert info.value.kind is ErrorKind.OVERLOADED and info.value.message == "Overloaded"


PARITY_REPLIES = {
    "text": FakeReply(text="Plain words, several of them — ünïcode too."),
    "tool calls": FakeReply(
        text="Reading.",
        tool_calls=[("read_file", {"path": "a b.txt"}), ("read_file", {"path": "ç.txt"})],
        usage={
            "input_tokens": 900,
            "output_tokens": 40,
            "cache_read_input_tokens": 512,
            "cache_creation_input_tokens": 64,
        },
    ),
    "length": FakeReply(text="cut", finish_reason="length", usage={"input_tokens": 3, "output_tokens": 1}),
}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("reply", list(PARITY_REPLIES.values()), ids=list(PARITY_REPLIES))
def test_both_transports_send_the_same_bytes_and_read_the_same_completion(
    anthropic_server: FakeAnthropicServer, reply: FakeReply, stream: bool
) -> None:
    settings = ModelSettings(max_tokens=100, temperature=0.5, timeout=5)
    results = []
    for transport in ("sdk", "http"):
        anthropic_server.queue(reply)
        deltas: list[str] = []
        on_text = deltas.append if stream else None
        model = model_for(anthropic_server.url, transport)
        results.append((model.complete(CONVERSATION, TOOLS, settings, on_text), deltas))
    (sdk, sdk_deltas), (http, http_deltas) = results
    assert sdk == http
    assert sdk_deltas == http_deltas and "".join(http_deltas) == (http.text if stream else "")
    assert http.text == reply.text and len(http.tool_calls) == len(reply.tool_calls or [])
    if reply.usage:
        usage = reply.usage
        assert http.usage.completion_tokens == usage["output_tokens"]
        assert http.usage.cached_tokens == usage.get("cache_read_input_tokens", 0)
        assert http.usage.prompt_tokens == usage["input_tokens"] + http.usage.cached_tokens + usage.get(
            "cache_creation_input_tokens", 0
        )
    assert http.finish_reason == (reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"))
    sdk_bytes, http_bytes = [r.raw for r in anthropic_server.requests if r.method == "POST"]
    assert sdk_bytes == http_bytes
    body = json.loads(http_bytes)
    assert body.get("stream") is (True if stream else None)
    assert "temperature" not in body and body["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_both_transports_speak_the_same_api_version(anthropic_server: FakeAnthropicServer) -> None:
    for transport in ("sdk", "http"):
        model_for(anthropic_server.url, transport).complete(HELLO, [], FAST)
    sdk, http = (r.headers["anthropic-version"] for r in anthropic_server.requests)
    assert sdk == http  # one API: a version apart, the same body can be valid on one and a 400 on the other
