"""Fixtures for the provider tests: fake provider servers on 127.0.0.1, a Router that records its sleeps, and the
remote providers' two transports, SDK and stdlib (each test that takes `transport` runs once per transport)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The fakes live in tests/fakes; make `tests.fakes` importable however pytest was started.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes.anthropic_server import FakeAnthropicServer  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402


class SleepRecorder:
    """Stands in for time.sleep in a Router: remembers each delay instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as srv:
        yield srv


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture(params=["sdk", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return request.param
