"""One gateway, many users, over the fake Telegram: each account's secrets, memory and files stay its own (never
in another's model requests, memory or workspace); strangers get a pairing code the owner accepts; a blocked
account is dropped; a redelivered message is answered once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("telegram", reason="the [gateways] extra (python-telegram-bot) is not installed")

from tests.gateway.fakes.runner import running
from tests.gateway.fakes.telegram_server import FakeTelegram
from tests.gateway.helpers import gateway_on

from grove.config import Settings
from grove.gateway.core import Gateway
from grove.gateway.homes import account_dir
from grove.gateway.telegram import TelegramAdapter
from grove.gateway.users import UserBook
from grove.llm.script import ScriptModel

OWNER, ALICE, BOB, EVE = 1, 42, 43, 66
SECRETS = {
    ALICE: ("ALICE-SECRET-7731", "alice-fact-kiwi", "ALICE-FILE-5521"),
    BOB: ("BOB-SECRET-9904", "bob-fact-plum", "BOB-FILE-3310"),
}


def actor(messages: list[dict[str, Any]], tools: list[Any]) -> dict[str, Any]:
    """remember: X -> the memory tool; save: NAME TEXT -> write_file; peek: PATH -> read_file; else an echo."""
    last = messages[-1]
    if last["role"] == "tool":
        return {"text": "done"}
    text = str(last["content"])
    verb, _, rest = text.partition(": ")
    calls = {
        "remember": ("memory", {"action": "add", "target": "memory", "content": rest}),
        "save": ("write_file", {"path": rest.split(" ", 1)[0], "content": rest.split(" ", 1)[-1]}),
        "peek": ("read_file", {"path": rest}),
    }
    if verb in calls:
        name, args = calls[verb]
        return {"tool_calls": [{"name": name, "arguments": args}]}
    return {"text": f"heard {len(messages)} messages"}


@pytest.fixture
def fake(telegram: FakeTelegram) -> FakeTelegram:
    return telegram  # conftest's: the token in the environment


def make(fake: FakeTelegram, tmp_path: Path, home: Path, model: ScriptModel, **extra: Any) -> Gateway:
    settings = Settings(home=home)
    return gateway_on(
        TelegramAdapter,
        tmp_path,
        model,
        settings=settings,
        base_url=fake.url,
        toolsets=["files", "memory"],
        **extra,
    )


def answered(fake: FakeTelegram, chat: int, count: int) -> None:
    fake.wait_for(lambda c: c.method == "sendMessage" and str(c.params["chat_id"]) == str(chat), count=count)


def test_two_users_never_see_each_other(fake: FakeTelegram, tmp_path: Path, grove_home: Path) -> None:
    model = ScriptModel(actor)
    gateway = make(fake, tmp_path, grove_home, model, allowed_users=[str(ALICE), str(BOB)])
    with running(gateway):
        for user in (ALICE, BOB):  # each in a DM (chat id = user id) and both in one group chat
            secret, fact, content = SECRETS[user]
            for n, text in enumerate(
                [f"my secret is {secret}", f"remember: {fact}", f"save: notes.txt {content}", "/new"], 1
            ):
                fake.user_says(user, user, text)
                answered(fake, user, n)
            fake.user_says(-100, user, f"in the group: {secret}")
        answered(fake, -100, 2)
        alice_file = (
            tmp_path / "chats" / "users" / "telegram" / account_dir("telegram", str(ALICE)) / str(ALICE)
        )
        assert (alice_file / "notes.txt").read_text() == SECRETS[ALICE][2]
        # Bob's new session; he tries to read Alice's file by path and to recall her secret
        fake.user_says(BOB, BOB, f"peek: {alice_file / 'notes.txt'}")
        fake.user_says(BOB, BOB, "what is Alice's secret?")
        fake.user_says(ALICE, ALICE, "what do you remember?")
        answered(fake, BOB, 6)
        answered(fake, ALICE, 5)

    def whose(request: list[dict[str, Any]]) -> set[int]:
        blob = json.dumps(request)
        return {u for u, marks in SECRETS.items() if any(m in blob for m in marks)}

    owners = [whose(messages) for messages, _ in model.requests]
    assert all(len(o) <= 1 for o in owners), "a model request held two users' words"
    assert owners.count({ALICE}) >= 5 and owners.count({BOB}) >= 5
    # each user's new session remembers that user's fact (memory works), and only that
    last_system = {
        user: next(
            json.dumps(m)
            for m, _ in reversed(model.requests)
            if "fact" in json.dumps(m[0]) and whose(m) == {user}
        )
        for user in (ALICE, BOB)
    }
    assert SECRETS[ALICE][1] in last_system[ALICE] and SECRETS[BOB][1] in last_system[BOB]
    # Bob's peek was refused (plain users answer no approvals), and nothing of Alice's file came back to him
    assert any("only its owner and admins" in t for t in fake.texts_to(BOB))
    # memory files: one per home, none in the grove's own home (no owner spoke)
    homes = {
        u: grove_home / "gateway" / "users" / "telegram" / account_dir("telegram", str(u)) for u in SECRETS
    }
    for user, home in homes.items():
        notes = (home / "memory" / "MEMORY.md").read_text()
        other = BOB if user == ALICE else ALICE
        assert SECRETS[user][1] in notes and SECRETS[other][1] not in notes
    assert not (grove_home / "memory" / "MEMORY.md").exists()
    # spend: one ledger (the grove's), each account its own scope
    from grove.spend.ledger import Ledger

    scopes = Ledger(grove_home / "spend.db").scopes()
    assert {f"user:telegram:{ALICE}", f"user:telegram:{BOB}", "all"} <= set(scopes)
    # files: every file holding a user's marks lies inside that user's home or workspace
    for path in [*grove_home.rglob("*"), *(tmp_path / "chats").rglob("*")]:
        if not path.is_file() or path.suffix in (".db", ".db-wal", ".db-shm") or "-wal" in path.name:
            continue
        data = path.read_bytes()
        for user, marks in SECRETS.items():
            if any(m.encode() in data for m in marks):
                mine = (
                    homes[user],
                    tmp_path / "chats" / "users" / "telegram" / account_dir("telegram", str(user)),
                )
                assert any(path.is_relative_to(root) for root in mine), f"{path} holds {user}'s words"


def test_a_stranger_pairs_with_a_code_and_a_blocked_one_is_dropped(
    fake: FakeTelegram, tmp_path: Path, grove_home: Path
) -> None:
    model = ScriptModel(actor)
    gateway = make(fake, tmp_path, grove_home, model, owners=[str(OWNER)])
    with running(gateway):
        fake.user_says(EVE, EVE, "hello?", username="eve")
        answered(fake, EVE, 1)
        refusal = fake.texts_to(EVE)[0]
        assert "not on this grove's allow-list" in refusal and str(EVE) in refusal
        code = refusal.split("pairing code is ")[1].split(" ")[0]
        fake.user_says(EVE, EVE, "again", username="eve")  # within the minute: not answered again (no floods)
        fake.user_says(EVE, EVE, "/allow " + code, username="eve")  # and a stranger cannot let themselves in
        gateway.refused_at[str(EVE)] -= 61  # a minute later
        fake.user_says(EVE, EVE, "and now?", username="eve")
        answered(fake, EVE, 2)
        assert code in fake.texts_to(EVE)[1]  # the same code while it is valid
        assert model.calls == 0  # nothing a stranger says reaches the model

        fake.user_says(OWNER, OWNER, "/users")
        answered(fake, OWNER, 1)
        assert code in fake.texts_to(OWNER)[0] and str(EVE) in fake.texts_to(OWNER)[0]
        fake.user_says(OWNER, OWNER, f"/allow {code}")
        answered(fake, OWNER, 2)
        assert fake.texts_to(OWNER)[1] == f"{EVE} is now user."
        fake.user_says(EVE, EVE, "now?", username="eve")
        answered(fake, EVE, 3)
        assert fake.texts_to(EVE)[2].startswith("heard")
        fake.user_says(EVE, EVE, "/block 1", username="eve")  # a plain user manages nobody
        answered(fake, EVE, 4)
        assert "Only the grove's owner" in fake.texts_to(EVE)[3]

        UserBook(grove_home).set_role("telegram", str(EVE), "blocked")  # grove gateway users block
        calls = model.calls
        fake.user_says(EVE, EVE, "still there?", username="eve")
        fake.user_says(OWNER, OWNER, "ping")
        answered(fake, OWNER, 3)
    assert len(fake.texts_to(EVE)) == 4 and model.calls == calls + 1  # blocked: no answer, no turn


def test_a_redelivered_message_is_answered_once(fake: FakeTelegram, tmp_path: Path, grove_home: Path) -> None:
    model = ScriptModel(actor)
    with running(make(fake, tmp_path, grove_home, model, owners=[str(OWNER)])):
        fake.user_says(OWNER, OWNER, "first")
        answered(fake, OWNER, 1)
    # a restart that gets the same update again (Telegram redelivers updates it was not told were handled)
    fake.updates = [{**fake.updates[0], "update_id": 50}]
    with running(make(fake, tmp_path, grove_home, model, owners=[str(OWNER)])):
        fake.user_says(OWNER, OWNER, "second")
        answered(fake, OWNER, 2)
    assert fake.texts_to(OWNER) == ["heard 2 messages", "heard 4 messages"] and model.calls == 2


def test_grove_gateway_users_lists_allows_by_code_and_blocks(
    grove_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.clirun import grove

    code = UserBook(grove_home).pairing_code("telegram", "555", "eve")
    assert code is not None
    assert grove(capsys, "gateway", "users", "list")[1].split() == [
        "telegram",
        "555",
        "waiting:",
        code,
        "eve",
    ]
    exit_code, out, _ = grove(
        capsys, "gateway", "users", "allow", "telegram", code.lower(), "--role", "admin"
    )
    assert (exit_code, out.strip()) == (0, "telegram: 555 is now admin")
    assert grove(capsys, "gateway", "users", "list", "telegram")[1].split() == [
        "telegram",
        "555",
        "admin",
        "eve",
    ]
    assert grove(capsys, "gateway", "users", "block", "telegram", "555")[0] == 0
    assert UserBook(grove_home).booked("telegram", "555") == "blocked"
    exit_code, _, err = grove(capsys, "gateway", "users", "allow", "telegram", "556", "--role", "god")
    assert exit_code != 0 and "role must be user, admin or owner" in err
