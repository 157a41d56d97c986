"""DingTalk against a fake Stream-mode server: a conversation answered on the session webhook with every frame
acknowledged, a file in (download code) and out (media upload + robot batchSend), an approval by typed answer,
a stranger given a pairing code, a ping answered, and a dropped stream reopened, each message answered once."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")

from tests.gateway.fakes.dingtalk_server import FakeDingTalk
from tests.gateway.fakes.runner import running
from tests.gateway.helpers import conversation, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.dingtalk import DingTalkAdapter
from grove.llm.script import ScriptModel

APP_KEY, APP_SECRET = "dingabc123", "ding-secret"
ADA, EVE, DM = "manager4220", "staff666", "cid-ada"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDingTalk]:
    monkeypatch.setenv("DINGTALK_APP_SECRET", APP_SECRET)
    with FakeDingTalk(APP_KEY, APP_SECRET) as srv:
        yield srv


def gateway_for(fake: FakeDingTalk, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        DingTalkAdapter,
        tmp_path,
        model,
        owners=[ADA],
        base_url=fake.url,
        options={"app_key": APP_KEY},
    )


def test_a_conversation_files_and_an_approval_by_reply(fake: FakeDingTalk, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = conversation()
    with running(gateway_for(fake, tmp_path, model)):
        fake.wait_connects(1)
        first = fake.user_says(DM, ADA, "hello")
        fake.wait(lambda s: s[0] == "session")
        assert fake.texts(DM) == ["Hello Ada."] and f"frame-{first}" in fake.acks
        fake.ping()

        fake.user_says(DM, ADA, file=("in.txt", b"to grove\n"))
        sent = fake.wait(lambda s: s[0] == "batch")[0][1]
        assert sent["msgKey"] == "sampleFile" and sent["userIds"] == [ADA]
        media = json.loads(sent["msgParam"])["mediaId"]
        assert fake.uploads[media] == ("out.txt", b"from grove\n")
        assert (tmp_path / "chats" / "dingtalk" / DM / "inbox" / "in.txt").read_bytes() == b"to grove\n"

        fake.user_says(DM, ADA, "write outside")
        fake.wait(lambda s: "Reply once, session or deny" in str(s[1]))
        fake.user_says(DM, ADA, "once")
        fake.wait(lambda s: s[1].get("text", {}).get("content") == "Written outside.")
        assert "ping-1" in fake.acks
    assert (outside / "x.txt").read_text() == "ok\n" and "Allowed once." in fake.texts(DM)


def test_a_stranger_and_a_dropped_stream(fake: FakeDingTalk, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        fake.wait_connects(1)
        fake.user_says("cid-eve", EVE, "let me in")
        refusal = fake.wait(lambda s: s[1].get("session") == "cid-eve")[0][1]
        assert "pairing code" in refusal["text"]["content"]
        fake.user_says(DM, ADA, "first", message_id="m-first")
        fake.wait(lambda s: s[1].get("text", {}).get("content") == "one")
        fake.drop()
        fake.wait_connects(2)
        fake.user_says(DM, ADA, "first", message_id="m-first")  # redelivered after the reconnect
        fake.user_says(DM, ADA, "second")
        fake.wait(lambda s: s[1].get("text", {}).get("content") == "two")
        time.sleep(0.2)
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert fake.texts(DM) == ["one", "two"] and model.calls == 2
