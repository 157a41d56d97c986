"""WhatsApp against a fake Cloud API: the webhook verification handshake, a conversation, a document in and
out, an approval by reply buttons, a stranger given a pairing code, a forged webhook refused, a redelivered
webhook answered once, and Graph's 500 and rate-limit answers retried until the message goes out."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")

from tests.gateway.fakes.runner import running
from tests.gateway.fakes.whatsapp_server import (
    APP_SECRET,
    VERIFY_TOKEN,
    FakeGraph,
    deliver,
    gateway_fields,
    inbound,
)
from tests.gateway.helpers import bound_port, conversation, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.whatsapp import WhatsAppAdapter
from grove.llm.script import ScriptModel

SECRET, VERIFY = APP_SECRET, VERIFY_TOKEN
ADA, EVE = "15551230001", "15551230666"


def gateway_for(graph: FakeGraph, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(WhatsAppAdapter, tmp_path, model, owners=[ADA], **gateway_fields(graph))


def test_a_conversation_documents_and_an_approval_by_buttons(graph: FakeGraph, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = conversation()
    gateway = gateway_for(graph, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        hello = {"hub.mode": "subscribe", "hub.verify_token": VERIFY, "hub.challenge": "1158201444"}
        assert httpx.get(f"http://127.0.0.1:{port}/whatsapp", params=hello).text == "1158201444"
        assert (
            httpx.get(
                f"http://127.0.0.1:{port}/whatsapp", params={**hello, "hub.verify_token": "x"}
            ).status_code
            == 403
        )

        deliver(port, SECRET, inbound(ADA, "Ada", {"type": "text", "text": {"body": "hello"}}))
        graph.wait_for(lambda c: c.method == "text")
        assert graph.texts(ADA) == ["Hello Ada."]
        assert graph.sent("status")[0].params["typing_indicator"] == {"type": "text"}

        graph.media["in1"] = ("in.txt", b"to grove\n")
        doc = {"type": "document", "document": {"id": "in1", "filename": "in.txt", "mime_type": "text/plain"}}
        deliver(port, SECRET, inbound(ADA, "Ada", doc))
        sent = graph.wait_for(lambda c: c.method == "document")[0]
        assert sent.params["document"]["filename"] == "out.txt"
        assert graph.media[sent.params["document"]["id"]] == ("out.txt", b"from grove\n")
        assert (tmp_path / "chats" / "whatsapp" / ADA / "inbox" / "in.txt").read_bytes() == b"to grove\n"

        deliver(port, SECRET, inbound(ADA, "Ada", {"type": "text", "text": {"body": "write outside"}}))
        question = graph.wait_for(lambda c: c.method == "interactive")[0]
        buttons = question.params["interactive"]["action"]["buttons"]
        assert [b["reply"]["title"] for b in buttons] == ["Allow once", "Allow for session", "Deny"]
        press = {
            "type": "interactive",
            "interactive": {"type": "button_reply", "button_reply": buttons[0]["reply"]},
        }
        deliver(port, SECRET, inbound(EVE, "Eve", dict(press)))  # a stranger's press
        deliver(port, SECRET, inbound(ADA, "Ada", dict(press)))
        graph.wait_for(lambda c: c.method == "text" and c.params["text"]["body"] == "Written outside.")
    assert (outside / "x.txt").read_text() == "ok\n"
    assert "Allowed once." in graph.texts(ADA) and graph.texts(EVE) == [
        "You are not on this grove's allow-list."
    ]


def test_forged_redelivered_and_a_failing_graph(graph: FakeGraph, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(graph, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        message = inbound(ADA, "Ada", {"type": "text", "text": {"body": "hi"}, "id": "wamid.same"})
        assert deliver(port, SECRET, message, signature="sha256=" + "0" * 64).status_code == 401
        assert deliver(port, "not-the-secret", message).status_code == 401
        deliver(port, SECRET, inbound(EVE, "Eve", {"type": "text", "text": {"body": "let me in"}}))
        graph.wait_for(lambda c: c.method == "text" and c.params["to"] == EVE)
        assert "pairing code" in graph.texts(EVE)[0]

        deliver(port, SECRET, message)
        deliver(port, SECRET, message)  # Meta redelivers
        graph.wait_for(lambda c: c.method == "text" and c.params["to"] == ADA)
        graph.failures = [500, 429]  # Graph is down, then rate limits, then takes it
        deliver(port, SECRET, inbound(ADA, "Ada", {"type": "text", "text": {"body": "again"}}))
        graph.wait_for(lambda c: c.method == "text" and c.params["text"]["body"] == "two")
        time.sleep(0.2)
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert graph.texts(ADA) == ["one", "two"] and model.calls == 2
