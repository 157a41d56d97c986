"""IRC against a real server (Debian's ngircd on 127.0.0.1): a conversation in a DM and in a channel, an approval
by typed answer, a file written told as a notice (IRC has no files), a stranger given a pairing code, and the
gateway back after the server drops every connection, answering each line once."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.gateway.fakes.ircd import NGIRCD, Ircd, IrcUser
from tests.gateway.fakes.runner import running
from tests.gateway.helpers import call, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.irc import IrcAdapter, byte_pieces, parse
from grove.llm.script import ScriptModel

pytestmark = pytest.mark.skipif(
    not os.path.exists(NGIRCD), reason="ngircd is not installed (apt-get install ngircd)"
)
ALICE = "~alice@127.0.0.1"  # user@host: the nick is not the account


@pytest.fixture
def ircd(tmp_path: Path) -> Iterator[Ircd]:
    server = Ircd(tmp_path / "ircd")
    server.start()
    yield server
    server.stop()


def gateway_for(ircd: Ircd, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        IrcAdapter,
        tmp_path,
        model,
        owners=[ALICE],
        base_url=ircd.url,
        options={"nick": "grove", "channels": ["#grove"], "lines_per_second": 50},
    )


def until(pred: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def wait_joined(gateway: Gateway) -> None:
    adapter = gateway.adapter
    assert isinstance(adapter, IrcAdapter)
    until(lambda: adapter.ready.is_set())


def test_a_conversation_an_approval_by_reply_and_a_channel(ircd: Ircd, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            {"text": "Hi, I am grove.\nTwo lines."},
            call("write_file", path="../../../outside/new.txt", content="approved\n"),
            {"text": "Saved it outside."},
            call("write_file", path="notes.txt", content="kept\n"),
            {"text": "Wrote notes."},
            {"text": "Hello, channel."},
        ]
    )
    gateway = gateway_for(ircd, tmp_path, model)
    with running(gateway):
        wait_joined(gateway)
        alice = IrcUser(ircd.port, "alice")
        alice.say("grove", "hello")
        assert alice.heard(2) == ["Hi, I am grove.", "Two lines."]  # one PRIVMSG per line

        alice.say("grove", "save it outside the workspace")
        until(lambda: any("Reply once, session or deny" in x for x in alice.heard(3)))
        assert any("outside" in x for x in alice.heard(3)) and not (outside / "new.txt").exists()
        alice.say("grove", "once")
        until(lambda: "Saved it outside." in alice.heard(3))
        assert "Allowed once." in alice.heard(3)
        assert (outside / "new.txt").read_text() == "approved\n"

        alice.say("grove", "write notes")
        until(lambda: any("notes.txt" in x and "IRC carries no files" in x for x in alice.heard(3)))

        alice.join("#grove")
        time.sleep(0.2)  # the JOIN is through before the lines
        alice.say("#grove", "not for grove")  # not addressed: no answer
        alice.say("#grove", "grove: hi all")
        assert alice.heard(1, where="#grove") == ["Hello, channel."]
        alice.close()
    assert model.calls == 6


def test_a_stranger_gets_a_pairing_code_and_nothing_runs(ircd: Ircd, tmp_path: Path) -> None:
    model = ScriptModel([])
    gateway = gateway_for(ircd, tmp_path, model)
    with running(gateway):
        wait_joined(gateway)
        mallory = IrcUser(
            ircd.port, "alice", user="mallory"
        )  # the owner's nick is free: a nick is no account
        mallory.say("grove", "hello")
        refusal = " ".join(mallory.heard(1))
        assert "pairing code" in refusal and "~mallory@127.0.0.1" in refusal
        mallory.close()
    assert model.calls == 0


def test_back_after_the_server_drops_every_connection(ircd: Ircd, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    gateway = gateway_for(ircd, tmp_path, model)
    with running(gateway):
        wait_joined(gateway)
        alice = IrcUser(ircd.port, "alice")
        alice.say("grove", "first")
        assert alice.heard(1) == ["one"]
        alice.close()
        ircd.stop()  # every connection dropped; the server is down a moment
        ircd.start()
        adapter = gateway.adapter
        assert isinstance(adapter, IrcAdapter)
        until(lambda: adapter.ready.is_set() and adapter.backoff.reconnects >= 1)
        alice = IrcUser(ircd.port, "alice")
        alice.say("grove", "second")
        assert alice.heard(1) == ["two"]
        time.sleep(0.3)
        assert alice.heard(1) == ["two"]  # answered once
        alice.close()
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert model.calls == 2


def test_lines_are_parsed_and_long_text_is_cut_to_the_line_limit() -> None:
    assert parse("@account=al;msgid=9 :al!~a@h PRIVMSG grove :hi there") == (
        {"account": "al", "msgid": "9"},
        "al!~a@h",
        "PRIVMSG",
        ["grove", "hi there"],
    )
    pieces = byte_pieces("é" * 500 + "\n\nnext")
    assert all(len(p.encode()) <= 400 for p in pieces) and "".join(pieces[:-1]) == "é" * 500
    assert pieces[-1] == "next"
