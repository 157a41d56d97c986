"""A Discord conversation against a fake REST API and gateway websocket: a DM answered with typing shown, a
stranger refused, a long answer split at Discord's 2,000 characters."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("discord", reason="the [gateways] extra (discord.py) is not installed")
pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")

from tests.gateway.fakes.discord_server import FakeDiscord
from tests.gateway.fakes.runner import running
from tests.gateway.helpers import gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.discord import DiscordAdapter
from grove.llm.script import ScriptModel

ALICE, MALLORY, DM = 42, 66, 555


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeDiscord:
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "discord-test-token")
    with FakeDiscord() as srv:
        yield srv


def gateway_for(fake: FakeDiscord, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        DiscordAdapter,
        tmp_path,
        model,
        owners=[str(ALICE)],
        base_url=fake.url,
        toolsets=None,  # the grove's own toolsets
    )


def posted(fake: FakeDiscord, channel: int) -> list[str]:
    return [c.params.get("content", "") for c in fake.sent(f"POST /channels/{channel}/messages")]


def test_a_message_is_answered_and_a_long_answer_split(fake: FakeDiscord, tmp_path: Path) -> None:
    long_answer = "\n\n".join(f"Paragraph {i}: " + "word " * 60 for i in range(12))  # ~3,800 characters
    model = ScriptModel([{"text": "Hello from grove."}, {"text": long_answer}])
    with running(gateway_for(fake, tmp_path, model)):
        fake.user_says(DM, ALICE, "hi")
        fake.wait_for(lambda c: c.params.get("content") == "Hello from grove.")
        fake.user_says(DM, ALICE, "tell me more")
        fake.wait_for(lambda c: "Paragraph 11" in str(c.params.get("content")))
        fake.user_says(DM + 1, MALLORY, "hi", name="mallory")
        fake.wait_for(lambda c: c.method == f"POST /channels/{DM + 1}/messages")
    parts = posted(fake, DM)[1:]
    assert len(parts) == 2 and all(len(p) <= 2000 for p in parts)
    assert " ".join(" ".join(parts).split()) == " ".join(long_answer.split())  # nothing lost or reordered
    assert fake.sent(f"POST /channels/{DM}/typing")
    assert "not on this grove's allow-list" in posted(fake, DM + 1)[0]
    assert model.calls == 2
    assert fake.sent("GET /gateway/bot")  # the websocket address came from the REST API


def test_an_approval_by_button(fake: FakeDiscord, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            {
                "tool_calls": [
                    {"name": "write_file", "arguments": {"path": "../../../outside/d.txt", "content": "d\n"}}
                ]
            },
            {"text": "Written."},
        ]
    )
    with running(gateway_for(fake, tmp_path, model)) as gateway:
        fake.user_says(DM, ALICE, "write d outside")
        question = fake.wait_for(lambda c: bool(c.params.get("components")))[0]
        client = gateway.adapter.client
        for _ in range(
            1000
        ):  # discord.py files the view once the send returns; a press before that is dropped
            if client.persistent_views:
                break
            time.sleep(0.01)
        labels = [b["label"] for b in question.params["components"][0]["components"]]
        assert labels == ["Allow once", "Allow for session", "Deny"]
        fake.user_presses(DM, MALLORY, question, 0, name="mallory")  # a stranger: told so, privately
        refused = fake.wait_for(lambda c: c.method.startswith("POST /interactions/"))[0]
        assert refused.params["data"]["flags"] == 64  # ephemeral
        assert not (outside / "d.txt").exists()
        fake.user_presses(DM, ALICE, question, 0)
        fake.wait_for(lambda c: c.params.get("content") == "Written.")
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    callbacks = [c for c in fake.calls if c.method.startswith("POST /interactions/")]
    assert (
        "Allowed once." in callbacks[1].params["data"]["content"]
        and callbacks[1].params["data"]["components"] == []
    )
    assert (outside / "d.txt").read_text() == "d\n"
