"""`grove gateway` as a new user types it: list, send (the delivery cron uses), run as a process against a fake
Telegram until SIGTERM, and the clear errors for a missing token, an unknown platform and a bad target."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("telegram", reason="the [gateways] extra (python-telegram-bot) is not installed")

from tests.clirun import grove
from tests.gateway.fakes.telegram_server import FakeTelegram

from grove.config import load_settings
from grove.gateway.adapter import GatewayError
from grove.gateway.delivery import deliver

TOKEN = "123:TEST"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeTelegram:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    with FakeTelegram(TOKEN) as srv:
        monkeypatch.setenv("GROVE_GATEWAY__TELEGRAM__BASE_URL", srv.url)
        yield srv


def test_send_delivers_a_long_text_in_pieces(fake: FakeTelegram, capsys: pytest.CaptureFixture[str]) -> None:
    text = "\n".join(f"line {i} " + "x" * 90 for i in range(60))  # ~5,800 characters: two messages
    code, _, err = grove(capsys, "gateway", "send", "telegram:77", text)
    assert (code, err) == (0, "")
    sent = fake.sent("sendMessage")
    assert [c.params["chat_id"] for c in sent] == ["77", "77"]
    assert "\n".join(c.params["text"] for c in sent) == text


def test_deliver_is_the_same_from_python(fake: FakeTelegram) -> None:
    deliver(load_settings(), "telegram:5", "cron says hi")
    assert [c.params["text"] for c in fake.sent("sendMessage")] == ["cron says hi"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["gateway", "send", "telegram", "x"], "must look like '<platform>:<chat id>'"),
        (["gateway", "send", "myspace:1", "x"], "unknown platform 'myspace'"),
        (["gateway", "run", "myspace"], "unknown platform 'myspace'"),
    ],
)
def test_mistakes_are_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _out, err = grove(capsys, *args)
    assert code == 2 and message in err and err.startswith("grove: ")


def test_a_missing_token_is_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    code, _, err = grove(capsys, "gateway", "run", "telegram")
    assert code == 2 and "set TELEGRAM_BOT_TOKEN" in err
    with pytest.raises(GatewayError, match="TELEGRAM_BOT_TOKEN"):
        deliver(load_settings(), "telegram:1", "x")


def test_list_names_the_platforms(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("GROVE_GATEWAY__TELEGRAM__ALLOWED_USERS", '["1", "2"]')
    code, out, _ = grove(capsys, "gateway", "list")
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert code == 0 and {"telegram", "slack", "discord"} <= set(lines)
    assert "token set; 0 owner(s), 2 allowed user(s)" in lines["telegram"]


def test_run_answers_two_platforms_in_one_process_until_sigterm(fake: FakeTelegram, tmp_path: Path) -> None:
    from tests.gateway.fakes.ircd import free_port
    from tests.gateway.fakes.webhook_receiver import Receiver, post_event

    script = tmp_path / "model.yaml"
    script.write_text("- text: Hello from the process.\n")
    port = free_port()
    with Receiver("hook-secret") as receiver:
        env = {
            **os.environ,
            "GROVE_MODEL": f"script:{script}",
            "GROVE_GATEWAY__TELEGRAM__ALLOWED_USERS": '["42"]',
            "GROVE_GATEWAY__TELEGRAM__WORKSPACE": str(tmp_path / "chats"),
            "GROVE_GATEWAY__TELEGRAM__REVIEW": "off",
            "GROVE_WEBHOOK_SECRET": "hook-secret",
            "GROVE_GATEWAY__WEBHOOK__OWNERS": '["ada"]',
            "GROVE_GATEWAY__WEBHOOK__BASE_URL": receiver.url + "/in",
            "GROVE_GATEWAY__WEBHOOK__PORT": str(port),
            "GROVE_GATEWAY__WEBHOOK__WORKSPACE": str(tmp_path / "hook"),
            "GROVE_GATEWAY__WEBHOOK__REVIEW": "off",
        }
        cmd = [sys.executable, "-m", "grove", "gateway", "run", "telegram", "webhook"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            fake.wait_for(lambda c: c.method == "getMe")  # connected
            fake.user_says(9, 42, "hello")
            fake.wait_for(
                lambda c: c.method == "sendMessage" and c.params.get("text") == "Hello from the process."
            )
            deadline = time.monotonic() + 20
            while True:  # the webhook listener is up once an event is taken
                try:
                    if post_event(
                        port, "hook-secret", {"id": "1", "chat": "c", "user": "ada", "text": "hi"}
                    ).is_success:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "the webhook never listened"
                time.sleep(0.1)
            receiver.wait_for(
                lambda c: c.method == "message" and c.params["text"] == "Hello from the process."
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert (
        "telegram running; owners: none in config; users: 42" in err and "webhook running; owners: ada" in err
    )
