"""The local web every web test talks to, settings that let the tools reach it (127.0.0.1 only), no real DNS."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.fakes.web_server import FakeWeb, fake_resolver

from grove.config import Settings
from grove.config.web import WebConfig


@pytest.fixture(autouse=True)
def no_real_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("grove.web.guard.system_resolver", fake_resolver({"localhost": ["127.0.0.1"]}))


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb() as w:
        yield w


@pytest.fixture
def web_settings(settings: Settings) -> Settings:
    settings.web = WebConfig(allow_hosts=["127.0.0.1"], timeout=5.0)
    return settings
