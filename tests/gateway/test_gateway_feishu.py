"""Feishu / Lark against a fake Open Platform: the encrypted url_verification challenge, a conversation, a file
in and out, an approval by interactive-card button (a stranger's press refused), a group line answered only
when it mentions grove, forged or unsigned events refused, a redelivered event answered once, and a rate limit
and an expired token retried."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")
pytest.importorskip("cryptography")

from tests.gateway.fakes.feishu_server import FakeFeishu, message_event, post_event, press_event
from tests.gateway.fakes.runner import running
from tests.gateway.helpers import bound_port, conversation, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.feishu import FeishuAdapter
from grove.llm.script import ScriptModel

APP_ID, APP_SECRET, VERIFY, KEY = "cli_test", "app-secret", "verification-token", "encrypt-key"
ADA, EVE, DM, GROUP = "ou_ada", "ou_eve", "oc_dm_ada", "oc_group"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeFeishu]:
    monkeypatch.setenv("FEISHU_APP_SECRET", APP_SECRET)
    monkeypatch.setenv("FEISHU_VERIFICATION_TOKEN", VERIFY)
    monkeypatch.setenv("FEISHU_ENCRYPT_KEY", KEY)
    with FakeFeishu(APP_ID, APP_SECRET) as srv:
        yield srv


def gateway_for(fake: FakeFeishu, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        FeishuAdapter,
        tmp_path,
        model,
        owners=[ADA],
        base_url=fake.url,
        port=0,
        options={"app_id": APP_ID},
    )


def test_a_conversation_files_a_card_approval_and_a_group(fake: FakeFeishu, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = conversation({"text": "Hello, group."})
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        challenge = {"challenge": "ajls384kdjx98XX", "token": VERIFY, "type": "url_verification"}
        assert post_event(port, challenge, KEY).json() == {"challenge": "ajls384kdjx98XX"}

        post_event(port, message_event(VERIFY, DM, ADA, {"text": "hello"}), KEY)
        fake.wait_for(lambda c: c.method == "text")
        assert fake.texts(DM) == ["Hello Ada."]

        fake.resources["file_in"] = b"to grove\n"
        post_event(
            port,
            message_event(VERIFY, DM, ADA, {"file_key": "file_in", "file_name": "in.txt"}, kind="file"),
            KEY,
        )
        sent = fake.wait_for(lambda c: c.method == "file")[0]
        assert fake.uploads[sent.params["content"]["file_key"]] == ("out.txt", b"from grove\n")
        assert (tmp_path / "chats" / "feishu" / DM / "inbox" / "in.txt").read_bytes() == b"to grove\n"

        post_event(port, message_event(VERIFY, DM, ADA, {"text": "write outside"}), KEY)
        card = fake.wait_for(lambda c: c.method == "interactive")[0].params["content"]
        buttons = card["elements"][1]["actions"]
        assert [b["text"]["content"] for b in buttons] == ["Allow once", "Allow for session", "Deny"]
        data = buttons[0]["value"]["data"]
        assert (
            post_event(port, press_event(VERIFY, DM, EVE, data), KEY).json()["toast"]["content"]
            == "You are not on this grove's allow-list."
        )
        pressed = post_event(port, press_event(VERIFY, DM, ADA, data), KEY).json()
        assert pressed["toast"] == {"type": "success", "content": "Allowed once."} and "card" in pressed
        fake.wait_for(lambda c: c.method == "text" and c.params["content"]["text"] == "Written outside.")

        post_event(port, message_event(VERIFY, GROUP, ADA, {"text": "chatting"}, p2p=False), KEY)
        post_event(
            port,
            message_event(VERIFY, GROUP, ADA, {"text": "@_user_1 hi all"}, p2p=False, mention_bot=True),
            KEY,
        )
        fake.wait_for(lambda c: c.method == "text" and c.params["receive_id"] == GROUP)
        time.sleep(0.2)
    assert (outside / "x.txt").read_text() == "ok\n"
    assert fake.texts(GROUP) == ["Hello, group."] and model.calls == 6


def test_forged_redelivered_and_retried(fake: FakeFeishu, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        event = message_event(VERIFY, DM, ADA, {"text": "hi"}, message_id="om_same")
        assert post_event(port, event, KEY, sign_with="wrong-key").status_code == 401
        assert (
            post_event(port, message_event("not-the-token", DM, ADA, {"text": "hi"}), KEY).status_code == 401
        )
        post_event(port, message_event(VERIFY, "oc_eve", EVE, {"text": "let me in"}), KEY)
        fake.wait_for(lambda c: c.method == "text" and c.params["receive_id"] == "oc_eve")
        assert "pairing code" in fake.texts("oc_eve")[0]

        post_event(port, event, KEY)
        post_event(port, event, KEY)  # Feishu redelivers when it did not see a quick 200
        fake.wait_for(lambda c: c.method == "text" and c.params["receive_id"] == DM)
        fake.answers = [99991400, 99991663]  # rate limited, then the token expired: both retried
        post_event(port, message_event(VERIFY, DM, ADA, {"text": "again"}), KEY)
        fake.wait_for(lambda c: c.method == "text" and c.params["content"]["text"] == "two")
        time.sleep(0.2)
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert fake.texts(DM) == ["one", "two"] and model.calls == 2
    assert len(fake.sent("token")) >= 2  # a new token after the expired one
