"""The generic signed webhook: a conversation with a file in and out, an approval by button event, a stranger
refused, unsigned / mis-signed / stale events refused with 401, a redelivered event answered once, and a message
to a receiver that is down for a while delivered when it is back."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")

from tests.gateway.fakes.runner import running
from tests.gateway.fakes.webhook_receiver import Receiver, post_event
from tests.gateway.helpers import bound_port, call, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.webhook import WebhookAdapter
from grove.llm.script import ScriptModel

SECRET = "s3cret-for-tests"


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    monkeypatch.setenv("GROVE_WEBHOOK_SECRET", SECRET)
    with Receiver(SECRET) as srv:
        yield srv


def gateway_for(receiver: Receiver, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        WebhookAdapter,
        tmp_path,
        model,
        owners=["ada"],
        base_url=receiver.url + "/grove",
        port=0,
    )


def test_a_conversation_with_files_and_an_approval_by_button(receiver: Receiver, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            {"text": "Hi."},
            call("read_file", path="inbox/data.csv"),
            call("write_file", path="report.txt", content="summed\n"),
            {"text": "Here is the report."},
            call("write_file", path="../../../outside/x.txt", content="ok\n"),
            {"text": "Written outside."},
        ]
    )
    gateway = gateway_for(receiver, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        assert post_event(port, SECRET, {"id": "1", "chat": "c1", "user": "ada", "text": "hello"}).json() == {
            "ok": True
        }
        receiver.wait_for(lambda c: c.method == "message")
        assert receiver.texts("c1") == ["Hi."]
        data = base64.b64encode(b"a,b\n1,2\n").decode()
        event = {
            "id": "2",
            "chat": "c1",
            "user": "ada",
            "text": "sum it",
            "files": [{"name": "data.csv", "data_base64": data}],
        }
        post_event(port, SECRET, event)
        sent = receiver.wait_for(lambda c: c.method == "file")[0]
        assert (
            sent.params["name"] == "report.txt"
            and base64.b64decode(sent.params["data_base64"]) == b"summed\n"
        )
        assert (tmp_path / "chats" / "webhook" / "c1" / "inbox" / "data.csv").read_bytes() == b"a,b\n1,2\n"

        post_event(port, SECRET, {"id": "3", "chat": "c1", "user": "ada", "text": "write outside"})
        question = receiver.wait_for(lambda c: c.method == "question")[0]
        labels = {c["label"]: c["data"] for c in question.params["choices"]}
        assert list(labels) == ["Allow once", "Allow for session", "Deny"]
        press = {"type": "button", "chat": "c1", "user": "eve", "data": labels["Allow once"]}
        assert post_event(port, SECRET, press).json()["decided"] is False  # a stranger's press
        pressed = post_event(port, SECRET, {**press, "user": "ada"}).json()
        assert pressed == {"ok": True, "text": "Allowed once.", "decided": True}
        receiver.wait_for(lambda c: c.method == "message" and c.params["text"] == "Written outside.")
    assert (outside / "x.txt").read_text() == "ok\n"
    assert receiver.refused == []  # every message grove sent was signed


def test_bad_signatures_strangers_and_redeliveries(receiver: Receiver, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "once"}, {"text": "after the outage"}])
    gateway = gateway_for(receiver, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        event = {"id": "e1", "chat": "c1", "user": "ada", "text": "hi"}
        assert post_event(port, "wrong-secret", event).status_code == 401
        assert post_event(port, SECRET, event, stamp=time.time() - 3600).status_code == 401  # a replay, later
        import httpx

        assert httpx.post(f"http://127.0.0.1:{port}/webhook", json=event).status_code == 401
        assert post_event(port, SECRET, {"chat": "c1"}).status_code == 400
        post_event(port, SECRET, {"id": "s1", "chat": "c9", "user": "eve", "text": "let me in"})
        refusal = receiver.wait_for(lambda c: c.method == "message" and c.params["chat"] == "c9")[0]
        assert "pairing code" in refusal.params["text"]

        post_event(port, SECRET, event)
        post_event(port, SECRET, event)  # the sender retried: the same id
        receiver.wait_for(lambda c: c.method == "message" and c.params["chat"] == "c1")
        receiver.down = 2  # the receiver restarts: two 503s, then it takes messages again
        post_event(port, SECRET, {**event, "id": "e2"})
        receiver.wait_for(lambda c: c.method == "message" and c.params["text"] == "after the outage")
        time.sleep(0.2)
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert receiver.texts("c1") == ["once", "after the outage"] and model.calls == 2
