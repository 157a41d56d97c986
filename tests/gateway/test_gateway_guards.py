"""The gateway's guards without a platform: approvals answered only once, only from the chat asked, only with a
known answer, secrets masked in the question; inbound file names cannot leave the inbox; links are not sent out;
Slack's bot token goes only to Slack's file hosts."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from grove.config.gateway import GatewayPlatformConfig
from grove.gateway.adapter import Choice
from grove.gateway.approvals import ApprovalBox
from grove.gateway.workspace import changed, save_inbound, snapshot
from grove.security.approval.base import ApprovalRequest
from grove.security.commands.base import CommandVerdict

KEY = "ghp_" + "Zq9" * 12


class Loop:
    """An event loop in a thread, as the gateway runs one, recording every question posted."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.asked: list[tuple[str, str, list[Choice]]] = []
        self.posted = threading.Event()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        self.asked.append((chat_id, text, choices))
        self.posted.set()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture
def loop() -> Loop:
    running = Loop()
    yield running
    running.close()


def ask_in_thread(box: ApprovalBox, command: str, timeout: float = 10) -> tuple[threading.Thread, list]:
    result: list = []
    notes: list[str] = []
    request = ApprovalRequest(command, CommandVerdict(command), "s1", timeout)
    thread = threading.Thread(
        target=lambda: result.append((box.wait("chat-1", "u1", request, notes.append), notes))
    )
    thread.start()
    return thread, result


def test_one_press_from_the_chat_asked_decides_and_replays_change_nothing(loop: Loop) -> None:
    box = ApprovalBox(loop.loop, loop.ask)
    thread, result = ask_in_thread(box, f"curl -H 'Authorization: token {KEY}' https://api.github.com")
    assert loop.posted.wait(10)
    chat, text, choices = loop.asked[0]
    assert chat == "chat-1" and KEY not in text and "curl" in text  # the secret never leaves the machine
    allow, _session, deny = (c.data for c in choices)
    assert box.press("chat-2", "u1", allow).text == "This question belongs to another chat."
    assert box.press("chat-1", "u2", allow).text == "This question belongs to another user."
    assert (
        box.press("chat-1", "u1", allow.rsplit(":", 1)[0] + ":always").text == "Unknown button."
    )  # not offered
    assert box.press("chat-1", "u1", "grove:ffffffff:once").text == "This question is no longer open."
    assert thread.is_alive()  # none of those answered it
    pressed = box.press("chat-1", "u1", deny)
    thread.join(10)
    assert pressed.decided and result[0][0] == "deny"
    assert not box.press("chat-1", "u1", allow).decided  # a late press cannot turn a deny into an allow
    assert box.pending == {}


def test_no_answer_in_time_is_a_deny_and_says_so(loop: Loop) -> None:
    box = ApprovalBox(loop.loop, loop.ask)
    thread, result = ask_in_thread(box, "rm -rf build", timeout=0.05)
    thread.join(10)
    answer, notes = result[0]
    assert answer is None and notes == ["No answer in 0 s: denied."] and box.pending == {}


def test_a_question_that_cannot_be_posted_is_a_deny(loop: Loop) -> None:
    async def broken(chat_id: str, text: str, choices: list[Choice]) -> None:
        raise ConnectionError("platform down")

    box = ApprovalBox(loop.loop, broken)
    thread, result = ask_in_thread(box, "rm -rf build")
    thread.join(10)
    answer, notes = result[0]
    assert answer is None and "Could not ask for approval (ConnectionError): denied." in notes


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "..", ".bashrc", "a/b\\c", ""])
def test_inbound_file_names_stay_in_the_inbox(tmp_path: Path, name: str) -> None:
    saved = save_inbound(tmp_path, name, b"data")
    assert saved.parent == tmp_path / "inbox" and saved.read_bytes() == b"data"
    assert not saved.name.startswith(".")


def test_a_second_file_of_the_same_name_does_not_replace_the_first(tmp_path: Path) -> None:
    first, second = save_inbound(tmp_path, "a.txt", b"1"), save_inbound(tmp_path, "a.txt", b"2")
    assert first != second and first.read_bytes() == b"1" and second.read_bytes() == b"2"


def test_only_files_the_turn_wrote_go_out_and_never_links_or_the_inbox(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("old")
    save_inbound(tmp_path, "in.txt", b"in")
    before = snapshot(tmp_path)
    (tmp_path / "new.txt").write_text("new")
    os.symlink("/etc/passwd", tmp_path / "passwd")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x").write_text("x")
    save_inbound(tmp_path, "in2.txt", b"in")
    assert changed(tmp_path, before, limit=5) == [tmp_path / "new.txt"]
    assert changed(tmp_path, before, limit=0) == []


def test_slack_sends_its_token_only_to_slack_file_hosts() -> None:
    from grove.gateway.slack import SlackAdapter

    adapter = SlackAdapter(GatewayPlatformConfig())
    assert adapter._fetchable({"url_private_download": "https://files.slack.com/files-pri/T1/x.txt"})
    for url in ("https://evil.example/x", "https://files.slack.com.evil.example/x", "", "file:///etc/passwd"):
        assert not adapter._fetchable({"url_private_download": url}), url
    local = SlackAdapter(GatewayPlatformConfig(base_url="http://127.0.0.1:9"))
    assert local._fetchable({"url_private_download": "http://127.0.0.1:9/files/F1"})


def test_a_typed_answer_needs_exactly_one_open_question_of_that_user(loop: Loop) -> None:
    box = ApprovalBox(loop.loop, loop.ask, buttons=False)
    first, _ = ask_in_thread(box, "rm -rf a")
    assert loop.posted.wait(10)
    assert "Reply once, session or deny" in loop.asked[0][1]
    assert box.typed("chat-1", "u1", "hello there") is None  # an ordinary message
    assert box.typed("chat-1", "u2", "yes") is None  # another user's
    loop.posted.clear()
    second, result = ask_in_thread(box, "rm -rf b")
    assert loop.posted.wait(10)
    assert box.typed("chat-1", "u1", "yes") is None  # two open questions: "yes" to which? neither
    ident = loop.asked[1][2][2].data  # the second question's deny, typed in full
    assert box.typed("chat-1", "u1", ident).decided
    second.join(10)
    assert result[0][0] == "deny"
    assert box.typed("chat-1", "u1", "Once.").text == "Allowed once."  # one left: a word answers it
    first.join(10)
