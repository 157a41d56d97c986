"""Fixtures more than one gateway test file uses: Telegram's and WhatsApp's fakes with their secrets in the
environment, as `grove gateway run` would read them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.gateway.fakes.telegram_server import FakeTelegram
from tests.gateway.fakes.whatsapp_server import APP_SECRET, TOKEN, VERIFY_TOKEN, FakeGraph

TELEGRAM_TOKEN = "123:TEST"


@pytest.fixture
def telegram(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeTelegram]:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TELEGRAM_TOKEN)
    with FakeTelegram(TELEGRAM_TOKEN) as srv:
        yield srv


@pytest.fixture
def graph(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGraph]:
    monkeypatch.setenv("WHATSAPP_TOKEN", TOKEN)
    monkeypatch.setenv("WHATSAPP_APP_SECRET", APP_SECRET)
    monkeypatch.setenv("WHATSAPP_VERIFY_TOKEN", VERIFY_TOKEN)
    with FakeGraph(TOKEN) as srv:
        yield srv
