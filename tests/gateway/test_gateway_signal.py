"""Signal against a fake signal-cli HTTP daemon (its JSON-RPC and event-stream wire format): a conversation,
an attachment in and out, an approval by typed answer, a group line answered only when addressed to grove, a
stranger given a pairing code, and the event stream reopened after the daemon drops it, each message once."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from tests.gateway.fakes.runner import running
from tests.gateway.fakes.signal_daemon import FakeSignalDaemon
from tests.gateway.helpers import conversation, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.signal_cli import SignalAdapter
from grove.llm.script import ScriptModel

ADA, EVE = "7ccae375-cd51-4c82-8b1e-7be3280aa485", "0d3e2f10-9999-4c82-8b1e-000000000666"
ADA_NO, EVE_NO = "+15551230001", "+15551230666"
GROUP = "Z3JvdmUtdGVzdC1ncm91cA=="


@pytest.fixture
def daemon() -> Iterator[FakeSignalDaemon]:
    with FakeSignalDaemon() as srv:
        yield srv


def gateway_for(daemon: FakeSignalDaemon, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        SignalAdapter,
        tmp_path,
        model,
        owners=[ADA],
        base_url=daemon.url,
    )


def test_a_conversation_attachments_an_approval_and_a_group(daemon: FakeSignalDaemon, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = conversation({"text": "Hello, group."})
    with running(gateway_for(daemon, tmp_path, model)):
        daemon.wait_streams(1)
        daemon.user_says(ADA, ADA_NO, "hello")
        daemon.wait(lambda p: p.get("message") == "Hello Ada.")
        assert daemon.sent("sendTyping")[0]["recipient"] == [ADA]  # the uuid, not the number

        daemon.user_says(ADA, ADA_NO, "take this", attachments={"in.txt": b"to grove\n"})
        sent = daemon.wait(lambda p: p.get("attachments"))[0]
        head, _, data = sent["attachments"][0].partition(";base64,")
        assert head == "data:text/plain;filename=out.txt" and base64.b64decode(data) == b"from grove\n"
        assert (tmp_path / "chats" / "signal" / ADA / "inbox" / "in.txt").read_bytes() == b"to grove\n"

        daemon.user_says(ADA, ADA_NO, "write outside")
        daemon.wait(lambda p: "Reply once, session or deny" in p.get("message", ""))
        daemon.user_says(ADA, ADA_NO, "once")
        daemon.wait(lambda p: p.get("message") == "Written outside.")
        assert "Allowed once." in daemon.texts(ADA)

        daemon.user_says(ADA, ADA_NO, "just chatting", group=GROUP)
        daemon.user_says(ADA, ADA_NO, "grove: hi all", group=GROUP)
        daemon.wait(lambda p: p.get("groupId") == GROUP)
        time.sleep(0.2)
    assert (outside / "x.txt").read_text() == "ok\n"
    assert daemon.texts(GROUP) == ["Hello, group."] and model.calls == 6


def test_a_stranger_and_a_dropped_event_stream(daemon: FakeSignalDaemon, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(daemon, tmp_path, model)
    with running(gateway):
        daemon.wait_streams(1)
        daemon.user_says(EVE, EVE_NO, "let me in")
        refusal = daemon.wait(lambda p: p.get("recipient") == [EVE])[0]
        assert "pairing code" in refusal["message"] and EVE in refusal["message"]
        daemon.user_says(ADA, ADA_NO, "first")
        daemon.wait(lambda p: p.get("message") == "one")
        daemon.drop()  # the daemon restarts: the stream ends
        daemon.wait_streams(2)
        daemon.user_says(ADA, ADA_NO, "second")
        daemon.wait(lambda p: p.get("message") == "two")
        time.sleep(0.2)
        adapter = gateway.adapter
        assert isinstance(adapter, SignalAdapter) and adapter.backoff.reconnects >= 1
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert daemon.texts(ADA) == ["one", "two"] and model.calls == 2
