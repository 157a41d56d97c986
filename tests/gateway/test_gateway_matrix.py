"""Matrix against a fake homeserver speaking the client-server API: an invite joined, a conversation, a file in
and out, an approval by typed answer, a stranger given a pairing code, failed syncs and a 429 recovered, and a
restart that resumes from the sync token: history never answered, each message answered once."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from tests.gateway.fakes.matrix_server import FakeMatrix
from tests.gateway.fakes.runner import running
from tests.gateway.helpers import call, gateway_on, outside_folder

from grove.gateway.core import Gateway
from grove.gateway.matrix import MatrixAdapter
from grove.llm.script import ScriptModel

TOKEN = "syt_test_token"
ADA, EVE, ROOM = "@ada:fake.test", "@eve:fake.test", "!room1:fake.test"


def until(pred: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMatrix]:
    monkeypatch.setenv("MATRIX_ACCESS_TOKEN", TOKEN)
    with FakeMatrix(TOKEN) as srv:
        yield srv


def gateway_for(fake: FakeMatrix, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        MatrixAdapter,
        tmp_path,
        model,
        owners=[ADA],
        base_url=fake.url,
        options={"poll_ms": 2000},
    )


def ready(gateway: Gateway) -> None:
    adapter = gateway.adapter
    assert isinstance(adapter, MatrixAdapter)
    until(lambda: adapter.synced.is_set())


def test_a_conversation_files_and_an_approval_by_reply(fake: FakeMatrix, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            {"text": "Hello Ada."},
            call("write_file", path="out.txt", content="from grove\n"),
            {"text": "Made out.txt from it."},
            call("write_file", path="../../../outside/x.txt", content="ok\n"),
            {"text": "Written outside."},
        ]
    )
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        ready(gateway)
        fake.invite(ROOM)
        fake.wait_for(lambda c: c.method == "POST join")
        fake.user_says(ROOM, ADA, "hello")
        until(lambda: fake.bot_texts(ROOM) == ["Hello Ada."])
        assert fake.sent("PUT typing")  # typing while the turn ran

        fake.user_sends_file(ROOM, ADA, "in.txt", b"to grove\n")
        until(lambda: any(c.get("msgtype") == "m.file" for c in fake.bot_events(ROOM)))
        sent = next(c for c in fake.bot_events(ROOM) if c.get("msgtype") == "m.file")
        assert sent["body"] == "out.txt" and fake.media[sent["url"].rsplit("/", 1)[1]][1] == b"from grove\n"
        assert (
            tmp_path / "chats" / "matrix" / "_room1_fake.test" / "inbox" / "in.txt"
        ).read_bytes() == b"to grove\n"

        fake.user_says(ROOM, ADA, "write outside")
        until(lambda: any("Reply once, session or deny" in t for t in fake.bot_texts(ROOM)))
        fake.user_says(ROOM, EVE, "once")  # a stranger's answer is no answer
        time.sleep(0.2)
        assert not (outside / "x.txt").exists()
        fake.user_says(ROOM, ADA, "once")
        until(lambda: fake.bot_texts(ROOM)[-1] == "Written outside.")
        assert "Allowed once." in fake.bot_texts(ROOM)
    assert (outside / "x.txt").read_text() == "ok\n"
    eve_answer = [t for t in fake.bot_texts(ROOM) if "pairing code" in t]
    assert len(eve_answer) == 1 and EVE in eve_answer[0]


def test_failed_syncs_rate_limits_and_a_restart_answer_once(fake: FakeMatrix, tmp_path: Path) -> None:
    fake.user_says(ROOM, ADA, "old history, before grove ever ran")
    model = ScriptModel([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    first = gateway_for(fake, tmp_path, model)
    with running(first):
        ready(first)
        adapter = first.adapter
        assert isinstance(adapter, MatrixAdapter)
        fake.fail(3)  # the homeserver's proxy answers 502 a few times
        until(lambda: adapter.backoff.reconnects >= 3)
        fake.limit_next = 1  # and the next send is rate limited once
        fake.user_says(ROOM, ADA, "first")
        until(lambda: fake.bot_texts(ROOM) == ["one"])
    fake.user_says(ROOM, ADA, "while grove was down")
    second = gateway_for(fake, tmp_path, model)
    with running(second):
        until(lambda: fake.bot_texts(ROOM) == ["one", "two"])
        fake.user_says(ROOM, ADA, "after the restart")
        until(lambda: fake.bot_texts(ROOM) == ["one", "two", "three"])
        time.sleep(0.2)
    assert fake.bot_texts(ROOM) == ["one", "two", "three"] and model.calls == 3
