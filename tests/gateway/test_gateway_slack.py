"""A Slack conversation in HTTP events mode against a fake Web API: signed events answered, forged ones refused,
an approval by Block Kit button, files in and out."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("slack_bolt", reason="the [gateways] extra (slack-bolt) is not installed")
pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")

from tests.gateway.fakes.runner import running
from tests.gateway.fakes.slack_server import FakeSlack
from tests.gateway.helpers import call, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.slack import SlackAdapter
from grove.llm.script import ScriptModel

SECRET = "signing-secret-for-tests"
ALICE, MALLORY, DM = "U42", "U66", "D1"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeSlack:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", SECRET)
    monkeypatch.delenv("SLACK_APP_TOKEN", raising=False)
    with FakeSlack(SECRET) as srv:
        yield srv


def gateway_for(fake: FakeSlack, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        SlackAdapter,
        tmp_path,
        model,
        owners=[ALICE],
        base_url=fake.url,
        port=0,
    )


def events_url(gateway: Gateway) -> str:
    adapter = gateway.adapter
    assert isinstance(adapter, SlackAdapter)
    for _ in range(500):  # the listener binds a free port once the loop runs it
        if adapter.port:
            return f"http://127.0.0.1:{adapter.port}/slack/events"
        time.sleep(0.01)
    raise AssertionError("the Slack events server did not start")


def posted(fake: FakeSlack, channel: str) -> list[str]:
    return [
        c.params.get("text", "") for c in fake.sent("chat.postMessage") if c.params.get("channel") == channel
    ]


def test_a_signed_message_is_answered_and_a_forged_one_is_not(fake: FakeSlack, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "Hello from grove."}])
    with running(gateway_for(fake, tmp_path, model)) as gateway:
        url = events_url(gateway)
        assert fake.user_says(url, DM, ALICE, "hi", secret="wrong-secret") == 401
        assert fake.user_says(url, DM, ALICE, "hi") == 200
        fake.wait_for(
            lambda c: c.method == "chat.postMessage" and c.params.get("text") == "Hello from grove."
        )
        assert fake.user_says(url, "D2", MALLORY, "hi too") == 200
        refusal = fake.wait_for(lambda c: c.method == "chat.postMessage" and c.params.get("channel") == "D2")[
            0
        ]
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert "not on this grove's allow-list" in refusal.params["text"]
    assert model.calls == 1  # the forged event and the stranger ran nothing


def test_an_approval_by_button_and_files_in_and_out(fake: FakeSlack, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            call("read_file", path="inbox/data.csv"),
            call("write_file", path="../../../outside/copy.csv", content="a,b\n"),
            call("write_file", path="result.txt", content="2 rows\n"),
            {"text": "Copied and counted."},
        ]
    )
    with running(gateway_for(fake, tmp_path, model)) as gateway:
        url = events_url(gateway)
        assert fake.user_sends_file(url, DM, ALICE, "data.csv", b"a,b\n1,2\n", text="copy it out") == 200
        question = fake.wait_for(lambda c: c.method == "chat.postMessage" and "blocks" in c.params)[0]
        assert "outside" in question.params["text"]
        assert fake.user_presses(url, DM, MALLORY, question, 0) == 200  # a stranger's press changes nothing
        fake.wait_for(lambda c: c.method == "chat.postEphemeral")
        assert not (outside / "copy.csv").exists()
        assert fake.user_presses(url, DM, ALICE, question, 0) == 200
        fake.wait_for(
            # the answer (a claims notice may follow it: "Copied" is not a tool grove has)
            lambda c: (
                c.method == "chat.postMessage" and c.params.get("text", "").startswith("Copied and counted.")
            )
        )
        fake.wait_for(lambda c: c.method == "files.completeUploadExternal")
    assert (outside / "copy.csv").read_text() == "a,b\n"
    update = fake.sent("chat.update")[0]
    assert "Allowed once." in update.params["text"]
    assert [fake.uploaded(f) for f in fake.uploads] == [b"2 rows\n"]
    read = model.requests[1][0][-1]  # the tool result the model saw after read_file
    assert "1,2" in str(read.get("content"))
