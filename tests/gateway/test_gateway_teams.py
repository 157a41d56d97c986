"""Microsoft Teams against a fake Bot Framework: a conversation with typing, a file in (download info) and out,
an approval by Adaptive Card button, a channel line answered only when it mentions grove, unsigned, forged,
wrong-audience and wrong-serviceUrl activities refused, a redelivered activity answered once, and the
connector's 429 retried after Retry-After."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")
pytest.importorskip("jwt")

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from tests.gateway.fakes.runner import running
from tests.gateway.fakes.teams_server import FakeBotFramework, activity, send_activity
from tests.gateway.helpers import bound_port, conversation, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.teams import TeamsAdapter
from grove.llm.script import ScriptModel

APP_ID, PASSWORD = "00000000-0000-0000-0000-00000000b0b0", "app-password"
ADA, EVE, DM, CHANNEL = "aad-ada", "aad-eve", "a:1dm-ada", "19:channel@thread.tacv2"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBotFramework]:
    monkeypatch.setenv("TEAMS_APP_PASSWORD", PASSWORD)
    with FakeBotFramework(APP_ID, PASSWORD) as srv:
        yield srv


def gateway_for(fake: FakeBotFramework, tmp_path: Path, model: ScriptModel) -> Gateway:
    options = {"app_id": APP_ID, "openid_url": fake.url + "/openid", "token_url": fake.url + "/token"}
    return gateway_on(
        TeamsAdapter,
        tmp_path,
        model,
        owners=[ADA],
        port=0,
        options=options,
    )


def test_a_conversation_files_a_card_approval_and_a_channel(fake: FakeBotFramework, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = conversation({"text": "Hello, channel."})
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        token = fake.token()
        assert send_activity(port, activity(fake, DM, ADA, "hello"), token).status_code == 202
        fake.wait_for(lambda c: c.method == "message")
        assert fake.texts(DM) == ["Hello Ada."] and fake.sent("typing")

        info = {
            "contentType": "application/vnd.microsoft.teams.file.download.info",
            "name": "in.txt",
            "content": {"downloadUrl": f"{fake.url}/files/in", "fileType": "txt"},
        }
        send_activity(port, activity(fake, DM, ADA, "", attachments=[info]), token)
        sent = fake.wait_for(lambda c: c.method == "message" and bool(c.params.get("attachments")))[0]
        assert sent.params["attachments"][0]["name"] == "out.txt"
        assert (tmp_path / "chats" / "teams" / "a_1dm-ada" / "inbox" / "in.txt").read_bytes() == b"to grove\n"

        send_activity(port, activity(fake, DM, ADA, "write outside"), token)
        card = fake.wait_for(
            lambda c: c.method == "message" and "adaptive" in str(c.params.get("attachments"))
        )[0]
        actions = card.params["attachments"][0]["content"]["actions"]
        assert [a["title"] for a in actions] == ["Allow once", "Allow for session", "Deny"]
        send_activity(
            port, activity(fake, DM, EVE, "", value=actions[0]["data"]), token
        )  # a stranger's press
        send_activity(port, activity(fake, DM, ADA, "", value=actions[0]["data"]), token)
        fake.wait_for(lambda c: c.method == "message" and c.params.get("text") == "Written outside.")

        send_activity(port, activity(fake, CHANNEL, ADA, "among ourselves", personal=False), token)
        mention = {
            "type": "mention",
            "mentioned": {"id": f"28:{APP_ID}", "name": "grove"},
            "text": "<at>grove</at>",
        }
        send_activity(
            port,
            activity(fake, CHANNEL, ADA, "<at>grove</at> hi all", personal=False, entities=[mention]),
            token,
        )
        fake.wait_for(lambda c: c.method == "message" and c.params["conversation"] == CHANNEL)
        time.sleep(0.2)
    assert (outside / "x.txt").read_text() == "ok\n"
    assert "Allowed once." in fake.texts(DM) and "You are not on this grove's allow-list." in fake.texts(DM)
    assert fake.texts(CHANNEL) == ["Hello, channel."] and model.calls == 6


def test_tokens_checked_redeliveries_once_and_throttling(fake: FakeBotFramework, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        port = bound_port(gateway)
        hello = activity(fake, DM, ADA, "hi", id="act-same")
        assert send_activity(port, hello, None).status_code == 401
        assert send_activity(port, hello, fake.token(aud="someone-else")).status_code == 401
        assert send_activity(port, hello, fake.token(serviceUrl="https://evil.example")).status_code == 401
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        forged = jwt.encode(
            {"iss": "https://api.botframework.com", "aud": APP_ID, "exp": int(time.time()) + 60},
            other,
            algorithm="RS256",
            headers={"kid": "k1"},
        )
        assert send_activity(port, hello, forged).status_code == 401
        send_activity(port, activity(fake, "a:eve", EVE, "let me in"), fake.token())
        fake.wait_for(lambda c: c.method == "message" and c.params["conversation"] == "a:eve")
        assert "pairing code" in fake.texts("a:eve")[0]

        send_activity(port, hello, fake.token())
        send_activity(port, hello, fake.token())  # the channel retried
        fake.wait_for(lambda c: c.method == "message" and c.params.get("text") == "one")
        fake.throttle = 2
        send_activity(port, activity(fake, DM, ADA, "again"), fake.token())
        fake.wait_for(lambda c: c.method == "message" and c.params.get("text") == "two")
        time.sleep(0.2)
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert fake.texts(DM) == ["one", "two"] and model.calls == 2
