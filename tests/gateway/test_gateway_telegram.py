"""A Telegram conversation against a fake Bot API server: answers, a stranger refused, an approval by button,
a file in and a file out, the chat's session resumed after a restart, a Bot API outage ridden out."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("telegram", reason="the [gateways] extra (python-telegram-bot) is not installed")

from tests.gateway.fakes.runner import running
from tests.gateway.fakes.telegram_server import FakeTelegram
from tests.gateway.helpers import call, gateway_on, outside_folder, published

from grove.gateway.core import Gateway
from grove.gateway.telegram import TelegramAdapter
from grove.llm.script import ScriptModel

ALICE, MALLORY, CHAT = 42, 66, 7


@pytest.fixture
def fake(telegram: FakeTelegram) -> FakeTelegram:
    return telegram  # conftest's: the token in the environment


def gateway_for(fake: FakeTelegram, tmp_path: Path, model: ScriptModel) -> Gateway:
    return gateway_on(
        TelegramAdapter,
        tmp_path,
        model,
        owners=[str(ALICE)],
        base_url=fake.url,
    )


def test_a_conversation_with_an_approval_by_button(fake: FakeTelegram, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [
            {"text": "Hi, I am grove."},
            call("write_file", path="../../../outside/new.txt", content="approved\n"),
            {"text": "Saved it outside."},
        ]
    )
    gateway = gateway_for(fake, tmp_path, model)
    with running(gateway):
        fake.user_says(CHAT, ALICE, "hello")
        fake.wait_for(lambda c: c.method == "sendMessage" and c.params.get("text") == "Hi, I am grove.")
        assert fake.sent("sendChatAction")  # typing while the turn ran

        fake.user_says(CHAT, ALICE, "save it outside the workspace")
        question = fake.wait_for(lambda c: c.method == "sendMessage" and "reply_markup" in c.params)[0]
        labels = {b["text"]: b["callback_data"] for b in fake.buttons(question)}
        assert list(labels) == ["Allow once", "Allow for session", "Deny"]
        assert "write" in question.params["text"] and "outside" in question.params["text"]
        assert not (outside / "new.txt").exists()  # nothing happens before the press

        fake.user_presses(CHAT, ALICE, question, labels["Allow once"])
        fake.wait_for(lambda c: c.method == "sendMessage" and c.params.get("text") == "Saved it outside.")
        assert fake.sent("answerCallbackQuery")[0].params.get("text") == "Allowed once."
        edited = fake.wait_for(lambda c: c.method == "editMessageText")[0]
        assert "Allowed once." in edited.params["text"]
    assert (outside / "new.txt").read_text() == "approved\n"
    stored = gateway.session_id(str(CHAT), str(ALICE))
    assert stored and gateway.store.get_session(stored).source == "telegram"


def test_a_stranger_is_refused_and_nothing_runs(fake: FakeTelegram, tmp_path: Path) -> None:
    model = ScriptModel([{"text": "should never be said"}])
    with running(gateway_for(fake, tmp_path, model)) as gateway:
        fake.user_says(CHAT + 1, MALLORY, "rm everything", username="mallory")
        refusal = fake.wait_for(lambda c: c.method == "sendMessage")[0]
        assert published(gateway) == "connected"  # as the dashboard shows it
    assert published(gateway) == "stopped"
    assert (
        "not on this grove's allow-list" in refusal.params["text"] and str(MALLORY) in refusal.params["text"]
    )
    assert fake.texts_to(CHAT + 1) == [refusal.params["text"]]
    assert model.calls == 0
    assert gateway.session_id(str(CHAT + 1), str(MALLORY)) is None and not (tmp_path / "chats").exists()


def test_a_stranger_cannot_press_the_owner_s_button_and_timeout_denies(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROVE_SECURITY__APPROVAL_TIMEOUT", "1")
    outside = outside_folder(tmp_path)
    model = ScriptModel(
        [call("write_file", path="../../../outside/x.txt", content="x\n"), {"text": "It was denied."}]
    )
    from grove.config import load_settings

    gateway = gateway_for(fake, tmp_path, model)
    gateway.settings = load_settings()
    gateway.settings.gateway = {"telegram": gateway.config}
    with running(gateway):
        fake.user_says(CHAT, ALICE, "write x outside")
        question = fake.wait_for(lambda c: c.method == "sendMessage" and "reply_markup" in c.params)[0]
        allow = fake.buttons(question)[0]["callback_data"]
        fake.user_presses(CHAT, MALLORY, question, allow, username="mallory")  # a stranger
        fake.user_presses(CHAT + 5, ALICE, question, allow)  # the right user, from another chat
        fake.wait_for(lambda c: c.method == "answerCallbackQuery", count=2)
        fake.wait_for(lambda c: c.method == "sendMessage" and c.params.get("text") == "It was denied.")
    answers = [c.params.get("text") for c in fake.sent("answerCallbackQuery")]
    assert answers == ["You are not on this grove's allow-list.", "This question belongs to another chat."]
    assert "No answer in 1 s: denied." in fake.texts_to(CHAT)
    assert not (outside / "x.txt").exists()


def test_files_in_and_out_and_the_session_resumes_after_a_restart(fake: FakeTelegram, tmp_path: Path) -> None:
    model = ScriptModel(
        [
            call("read_file", path="inbox/notes.txt"),
            call("write_file", path="summary.txt", content="one line\n"),
            {"text": "Summary attached."},
            {"text": "Still here."},
        ]
    )
    with running(gateway_for(fake, tmp_path, model)) as first:
        fake.user_sends_file(CHAT, ALICE, "notes.txt", b"alpha\nbeta\n", caption="summarise this")
        fake.wait_for(lambda c: c.method == "sendDocument")
    document = fake.sent("sendDocument")[0]
    assert document.files["document"] == ("summary.txt", b"one line\n")
    assert "Summary attached." in fake.texts_to(CHAT)
    session_id = first.session_id(str(CHAT), str(ALICE))
    with running(gateway_for(fake, tmp_path, model)) as second:
        fake.user_says(CHAT, ALICE, "are you there?")
        fake.wait_for(lambda c: c.method == "sendMessage" and c.params.get("text") == "Still here.")
    assert second.session_id(str(CHAT), str(ALICE)) == session_id
    messages = second.store.messages(session_id)
    contents = [str(m.get("content")) for m in messages if m["role"] in ("user", "tool")]
    assert any("inbox/notes.txt" in c for c in contents) and any("alpha" in c for c in contents)
    assert any("are you there?" in c for c in contents)


def test_an_outage_of_the_bot_api_is_ridden_out_and_nothing_is_answered_twice(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    model = ScriptModel([{"text": "one"}, {"text": "two"}])
    with running(gateway_for(fake, tmp_path, model)):
        fake.user_says(CHAT, ALICE, "first")
        fake.wait_for(lambda c: c.method == "sendMessage" and c.params.get("text") == "one")
        fake.fail_polls = 1  # Telegram answers 502 for a moment
        fake.wait_for(lambda c: c.method == "getUpdates-failed")
        fake.user_says(CHAT, ALICE, "during the outage")
        fake.wait_for(lambda c: c.method == "sendMessage" and c.params.get("text") == "two")
    assert fake.texts_to(CHAT) == ["one", "two"] and model.calls == 2
