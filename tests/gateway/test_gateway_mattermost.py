"""Mattermost against a fake server speaking API v4: a DM conversation, a channel post answered only when it
mentions grove, a file in and out, an approval by interactive button (a forged button refused), a stranger
given a pairing code, and a dropped websocket resumed with the events it missed, each answered once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")

from tests.gateway.fakes.mattermost_server import FakeMattermost
from tests.gateway.fakes.runner import running
from tests.gateway.helpers import call, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.mattermost import MattermostAdapter
from grove.llm.script import ScriptModel

TOKEN = "mm-token"
ADA, EVE, DM, TOWN = "ada000000000000000000000aa", "eve000000000000000000000ee", "dmchannel1", "townsquare"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMattermost]:
    monkeypatch.setenv("MATTERMOST_TOKEN", TOKEN)
    with FakeMattermost(TOKEN) as srv:
        yield srv


def gateway_for(fake: FakeMattermost, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        MattermostAdapter,
        tmp_path,
        model,
        owners=[ADA],
        base_url=fake.url,
        port=0,
    )


def test_a_conversation_files_and_an_approval_by_button(fake: FakeMattermost, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            {"text": "Hello Ada."},
            {"text": "Hello, town."},
            call("write_file", path="out.txt", content="from grove\n"),
            {"text": "Made out.txt."},
            call("write_file", path="../../../outside/x.txt", content="ok\n"),
            {"text": "Written outside."},
        ]
    )
    with running(gateway_for(fake, tmp_path, model)):
        fake.wait_connected()
        fake.user_posts(DM, ADA, "hello")
        fake.wait_posts(lambda p: p.get("message") == "Hello Ada.")
        assert DM in fake.typing
        fake.user_posts(TOWN, ADA, "talking among ourselves", direct=False)
        fake.user_posts(TOWN, ADA, "@grove hi", direct=False, mention=True)
        fake.wait_posts(lambda p: p.get("message") == "Hello, town.")

        fake.user_posts(DM, ADA, "take this", files={"in.txt": b"to grove\n"})
        sent = fake.wait_posts(lambda p: p.get("file_ids"))[0]
        assert fake.files[sent["file_ids"][0]] == ("out.txt", b"from grove\n")
        assert (tmp_path / "chats" / "mattermost" / DM / "inbox" / "in.txt").read_bytes() == b"to grove\n"

        fake.user_posts(DM, ADA, "write outside")
        question = fake.wait_posts(lambda p: p.get("props"))[0]
        assert [a["name"] for a in question["props"]["attachments"][0]["actions"]] == [
            "Allow once",
            "Allow for session",
            "Deny",
        ]
        forged = {**question["props"]["attachments"][0]["actions"][2]["integration"]}
        forged_body = {
            "user_id": ADA,
            "channel_id": DM,
            "context": {**forged["context"], "data": forged["context"]["data"].replace("deny", "session")},
        }
        assert httpx.post(forged["url"], json=forged_body).status_code == 403  # a button grove did not make
        assert fake.press(question, "Allow once", EVE) == {
            "ephemeral_text": "You are not on this grove's allow-list."
        }
        answer = fake.press(question, "Allow once", ADA)
        assert answer["update"]["message"].endswith("→ Allowed once.")
        fake.wait_posts(lambda p: p.get("message") == "Written outside.")
    assert (outside / "x.txt").read_text() == "ok\n"
    assert fake.texts(TOWN) == ["Hello, town."] and model.calls == 6


def test_a_stranger_and_a_dropped_websocket(fake: FakeMattermost, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        fake.wait_connected()
        fake.user_posts("dm-eve", EVE, "let me in")
        refusal = fake.wait_posts(lambda p: p["channel_id"] == "dm-eve")[0]
        assert "pairing code" in refusal["message"] and EVE in refusal["message"]
        fake.user_posts(DM, ADA, "first")
        fake.wait_posts(lambda p: p.get("message") == "one")
        fake.drop()
        fake.user_posts(DM, ADA, "while the socket was down")  # kept for the connection; replayed on resume
        fake.wait_connected(count=2)
        fake.wait_posts(lambda p: p.get("message") == "two")
        time.sleep(0.3)
        adapter = gateway.adapter
        assert isinstance(adapter, MattermostAdapter) and adapter.backoff.reconnects >= 1
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert fake.texts(DM) == ["one", "two"] and model.calls == 2
