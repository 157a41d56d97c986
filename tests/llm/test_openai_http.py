"""The stdlib transport of the OpenAI-compatible provider: start-up cost, headers, failures, and parity with the SDK."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply, Handler
from tests.llm.samples import FAST, TOOLS

import grove
from grove.config import ProviderConfig, Settings
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_transport import sse_events
from grove.llm.openai_compat import OpenAICompatModel
from grove.llm.spec import build_model
from grove.llm.types import ModelSettings

ROOT = Path(__file__).resolve().parents[2]
HELLO = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "hello"}]


class RawOpenAIServer(FakeOpenAIServer):
    """Answers every chat completion with HTTP 200 and `raw` as the body, whatever it holds."""

    raw = ""

    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        h.send_json(200, self.raw)


@pytest.fixture
def raw_server() -> Iterator[RawOpenAIServer]:
    with RawOpenAIServer() as srv:
        yield srv


def model_for(url: str, transport: str = "http", **kw: Any) -> OpenAICompatModel:
    return OpenAICompatModel(
        name="openai-compat:fake", model="fake-model", base_url=url, transport=transport, **kw
    )


def closed_port_url() -> str:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_a_one_shot_model_never_imports_the_sdk(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    openai_server.queue(FakeReply(text="no sdk"), FakeReply(text="streamed"))
    code = (
        "import sys\n"
        "from grove.config import Settings\n"
        "from grove.llm.spec import build_model\n"
        "from grove.llm.types import ModelSettings\n"
        f"model = build_model('openai-compat:fake-model@{openai_server.url}', Settings(home=sys.argv[1]))\n"
        "hi = [{'role': 'user', 'content': 'hi'}]\n"
        "plain = model.complete(hi, [], ModelSettings(timeout=5))\n"
        "streamed = model.complete(hi, [], ModelSettings(timeout=5), on_text=lambda _: None)\n"
        "print(plain.text, streamed.text, 'openai' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GROVE_", "OPENAI_"))}
    env["GROVE_HOME"] = str(tmp_path)
    run = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["no", "sdk", "streamed", "False"]
    assert len(openai_server.requests) == 2


@pytest.mark.parametrize(
    ("setting", "long_lived", "expected"),
    [("auto", False, "http"), ("auto", True, "sdk"), ("sdk", False, "sdk"), ("http", True, "http")],
)
def test_auto_means_the_sdk_only_for_long_lived_sessions(
    setting: str, long_lived: bool, expected: str, tmp_path: Path
) -> None:
    settings = Settings(home=tmp_path, providers={"openai-compat": ProviderConfig(transport=setting)})
    model = build_model("openai-compat:m@http://127.0.0.1:9/v1", settings, long_lived=long_lived)
    assert isinstance(model, OpenAICompatModel) and model.transport == expected


def test_headers_carry_the_key_only_when_there_is_one(openai_server: FakeOpenAIServer) -> None:
    model_for(openai_server.url).complete(HELLO, [], FAST)
    model_for(openai_server.url, api_key="sk-local").complete(HELLO, [], FAST)
    keyless, keyed = (r.headers for r in openai_server.requests)
    assert "authorization" not in keyless
    assert keyed["authorization"] == "Bearer sk-local"
    assert keyed["user-agent"] == f"grove/{grove.__version__}"
    assert keyed["content-type"] == "application/json" and keyed["accept"] == "application/json"


def test_a_trailing_slash_in_the_base_url_is_dropped(openai_server: FakeOpenAIServer) -> None:
    model_for(openai_server.url + "/").complete(HELLO, [], FAST)
    assert openai_server.requests[0].path == "/v1/chat/completions"


def test_connection_refused_is_a_connection_error() -> None:
    with pytest.raises(ModelError) as info:
        model_for(closed_port_url()).complete(HELLO, [], FAST)
    assert info.value.kind is ErrorKind.CONNECTION and info.value.retryable
    assert "cannot reach the model server" in info.value.message and "refused" in info.value.message


def test_a_read_timeout_is_a_timeout(openai_server: FakeOpenAIServer) -> None:
    openai_server.queue(FakeReply(text="late", delay=2.0))
    with pytest.raises(ModelError) as info:
        model_for(openai_server.url).complete(HELLO, [], ModelSettings(timeout=0.1))
    assert info.value.kind is ErrorKind.TIMEOUT


def test_an_error_status_keeps_its_status_and_retry_after(openai_server: FakeOpenAIServer) -> None:
    openai_server.queue(FakeReply(status=429, headers={"Retry-After": "7"}))
    with pytest.raises(ModelError) as info:
        model_for(openai_server.url).complete(HELLO, [], FAST)
    err = info.value
    assert (err.kind, err.status, err.retry_after) == (ErrorKind.RATE_LIMIT, 429, 7.0)
    assert err.message == "Rate limit reached, please retry later"  # the body's message, not a generic one


def test_a_200_that_is_not_json_is_a_server_error(raw_server: RawOpenAIServer) -> None:
    raw_server.raw = "<html>502 Bad Gateway</html>"
    with pytest.raises(ModelError) as info:
        model_for(raw_server.url).complete(HELLO, [], FAST)
    assert info.value.kind is ErrorKind.SERVER_ERROR and info.value.retryable
    assert "not a JSON object" in info.value.message and "502 Bad Gateway" in info.value.message


@pytest.mark.parametrize("transport", ["sdk", "http"])
def test_a_200_without_choices_is_classified(raw_server: RawOpenAIServer, transport: str) -> None:
    raw_server.raw = json.dumps({"error": {"message": "Upstream provider overloaded", "code": 502}})
    with pytest.raises(ModelError) as info:
        model_for(raw_server.url, transport).complete(HELLO, [], FAST)
    assert info.value.kind is ErrorKind.OVERLOADED
    assert info.value.message == "Upstream provider overloaded"


def test_a_stream_event_that_is_not_json_is_a_server_error(raw_server: RawOpenAIServer) -> None:
    raw_server.raw = "data: {not json\n\n"
    with pytest.raises(ModelError) as info:
        model_for(raw_server.url).complete(HELLO, [], FAST, on_text=lambda _: None)
    assert info.value.kind is ErrorKind.SERVER_ERROR and "not JSON" in info.value.message


def test_sse_events_follow_the_event_framing() -> None:
    lines = [
        b": a comment\r\n",
        b"event: message\n",
        b'data: {"a":\n',
        b"data: 1}\n",
        b"\n",
        b"event: no data, not dispatched\n",
        b"\n",
        b"data:[DONE]\n",
        b"\n",
        b"event: ping\r\n",
        b"id: 7\r\n",
        b'data: {"type": "ping"}\r\n',
        b"\r\n",
        b'data: {"cut": "before its blank line"}\n',
    ]
    assert list(sse_events(lines)) == [("message", '{"a":\n1}'), ("", "[DONE]"), ("ping", '{"type": "ping"}')]


def test_an_unknown_transport_is_refused() -> None:
    with pytest.raises(ValueError, match="sdk, http"):
        OpenAICompatModel(name="x", model="m", transport="curl")


PARITY_REPLIES = {
    "text": FakeReply(text="Plain words, several of them."),
    "tool calls": FakeReply(
        text="Reading.",
        tool_calls=[("read_file", {"path": "a b.txt"}), ("read_file", {"path": "c.txt"})],
        usage={
            "prompt_tokens": 900,
            "completion_tokens": 40,
            "prompt_tokens_details": {"cached_tokens": 512},
        },
    ),
    "length": FakeReply(
        text="cut", finish_reason="length", usage={"prompt_tokens": 3, "completion_tokens": 1}
    ),
}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("reply", list(PARITY_REPLIES.values()), ids=list(PARITY_REPLIES))
def test_both_transports_send_the_same_body_and_read_the_same_completion(
    openai_server: FakeOpenAIServer, reply: FakeReply, stream: bool
) -> None:
    settings = ModelSettings(max_tokens=100, temperature=0.5, seed=3, timeout=5)
    results = []
    for transport in ("sdk", "http"):
        openai_server.queue(reply)
        deltas: list[str] = []
        on_text = deltas.append if stream else None
        results.append(
            (model_for(openai_server.url, transport).complete(HELLO, TOOLS, settings, on_text), deltas)
        )
    (sdk, sdk_deltas), (http, http_deltas) = results
    assert sdk == http
    assert sdk_deltas == http_deltas and "".join(http_deltas) == (http.text if stream else "")
    assert http.text == (reply.text or "") and len(http.tool_calls) == len(reply.tool_calls or [])
    if reply.usage:
        assert http.usage.prompt_tokens == reply.usage["prompt_tokens"]
        assert http.usage.cached_tokens == reply.usage.get("prompt_tokens_details", {}).get(
            "cached_tokens", 0
        )
    assert http.finish_reason == (reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"))
    sdk_req, http_req = openai_server.requests
    assert sdk_req.path == http_req.path == "/v1/chat/completions"
    assert sdk_req.body == http_req.body
    assert ("stream" in http_req.body) is stream
