"""WeCom against a fake API: the signed, encrypted URL check, a conversation, an image in and a file out, an
approval by template-card button (a stranger's press refused), forged callbacks refused, a redelivered callback
answered once, and a rate limit and an expired token retried."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")
pytest.importorskip("cryptography")

from tests.gateway.fakes.runner import running
from tests.gateway.fakes.wecom_server import FakeWeCom, callback, image_xml, press_xml, text_xml
from tests.gateway.helpers import bound_port, conversation, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.wecom import WeComAdapter, encrypt, msg_signature
from grove.llm.script import ScriptModel

CORP, SECRET, TOKEN = "ww1234567890abcdef", "app-secret", "callback-token"
AES = "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C"  # 43 characters, as WeCom generates
ADA, EVE = "ada.lovelace", "eve"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWeCom]:
    monkeypatch.setenv("WECOM_SECRET", SECRET)
    monkeypatch.setenv("WECOM_TOKEN", TOKEN)
    monkeypatch.setenv("WECOM_AES_KEY", AES)
    with FakeWeCom(CORP, SECRET) as srv:
        yield srv


def gateway_for(fake: FakeWeCom, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        WeComAdapter,
        tmp_path,
        model,
        owners=[ADA],
        base_url=fake.url,
        port=0,
        options={"corp_id": CORP, "agent_id": 1000002},
    )


def test_a_conversation_files_and_a_card_approval(fake: FakeWeCom, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = conversation()
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        echo = encrypt(AES, CORP, b"echo-4711")
        query = {
            "msg_signature": msg_signature(TOKEN, "1", "n", echo),
            "timestamp": "1",
            "nonce": "n",
            "echostr": echo,
        }
        assert httpx.get(f"http://127.0.0.1:{port}/wecom", params=query).text == "echo-4711"

        assert callback(port, TOKEN, AES, CORP, text_xml(CORP, ADA, "hello")).text == "success"
        fake.wait_for(lambda c: c.method == "text")
        assert fake.texts(ADA) == ["Hello Ada."]

        fake.media["img1"] = ("photo.jpg", b"\xff\xd8jpeg")
        callback(port, TOKEN, AES, CORP, image_xml(CORP, ADA, "img1"))
        sent = fake.wait_for(lambda c: c.method == "file")[0]
        assert fake.media[sent.params["file"]["media_id"]] == ("out.txt", b"from grove\n")
        inbox = tmp_path / "chats" / "wecom" / "ada.lovelace" / "inbox"
        assert [p.read_bytes() for p in inbox.iterdir()] == [b"\xff\xd8jpeg"]

        callback(port, TOKEN, AES, CORP, text_xml(CORP, ADA, "write outside"))
        card = fake.wait_for(lambda c: c.method == "template_card")[0].params["template_card"]
        keys = {b["text"]: b["key"] for b in card["button_list"]}
        assert list(keys) == ["Allow once", "Allow for session", "Deny"]
        callback(port, TOKEN, AES, CORP, press_xml(CORP, EVE, keys["Allow once"]))  # a stranger's press
        callback(port, TOKEN, AES, CORP, press_xml(CORP, ADA, keys["Allow once"]))
        fake.wait_for(lambda c: c.method == "text" and c.params["text"]["content"] == "Written outside.")
    assert (outside / "x.txt").read_text() == "ok\n"
    assert "Allowed once." in fake.texts(ADA) and fake.texts(EVE) == [
        "You are not on this grove's allow-list."
    ]


def test_forged_redelivered_and_retried(fake: FakeWeCom, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        same = text_xml(CORP, ADA, "hi", msg_id="4711")
        assert callback(port, TOKEN, AES, CORP, same, sign_token="not-the-token").status_code == 401
        assert callback(port, TOKEN, AES, "another-corp", same).status_code == 401
        callback(port, TOKEN, AES, CORP, text_xml(CORP, EVE, "let me in"))
        fake.wait_for(lambda c: c.method == "text" and c.params["touser"] == EVE)
        assert "pairing code" in fake.texts(EVE)[0]

        callback(port, TOKEN, AES, CORP, same)
        callback(port, TOKEN, AES, CORP, same)  # WeCom retries a callback it thinks failed
        fake.wait_for(lambda c: c.method == "text" and c.params["touser"] == ADA)
        fake.answers = [45009, 42001]
        callback(port, TOKEN, AES, CORP, text_xml(CORP, ADA, "again"))
        fake.wait_for(lambda c: c.method == "text" and c.params["text"]["content"] == "two")
        time.sleep(0.2)
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert fake.texts(ADA) == ["one", "two"] and model.calls == 2 and len(fake.sent("gettoken")) >= 2
