"""Shared fixtures: a fresh GROVE_HOME per test, a store, and a ready agent on the script model."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from grove.config import Settings
from grove.store.sessions import SessionStore

# A suite started from a script in the background (`pytest &`) inherits SIGINT ignored, and so would every grove it
# starts: the Ctrl-C tests would then see no Ctrl-C at all. A handled signal is reset to default across exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def grove_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own GROVE_HOME and no provider keys, so nothing leaks between tests or to the network."""
    home = tmp_path / "grove-home"
    monkeypatch.setenv("GROVE_HOME", str(home))
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GROVE_API_KEY", "GROVE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    # pip without any index or config: a first-use fetch of the default model (grove.llm.local_fetch) from a test
    # fails at once instead of reaching the network
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    return home


@pytest.fixture(autouse=True)
def sandbox_group_may_write(tmp_path: Path) -> Iterator[None]:
    """As root, file tools act as the sandbox group (64055); projects are group-writable, as the README asks."""
    if os.geteuid() != 0:
        yield
        return
    os.chown(tmp_path, -1, 64_055)
    os.chmod(tmp_path, 0o2775)
    old = os.umask(0o002)
    yield
    os.umask(old)


@pytest.fixture
def settings(grove_home: Path) -> Settings:
    return Settings()


@pytest.fixture
def store(settings: Settings) -> Iterator[SessionStore]:
    s = SessionStore.open(settings.db_path)
    yield s
    s.db.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws
