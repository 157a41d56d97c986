"""Fixtures: a real sshd per test module (skipped with the reason when it cannot start), and settings whose
ssh config is the one that server's client config."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.backends.sshd import Sshd, make_sshd, unavailable

from grove.config import Settings


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    why = unavailable()
    if why:
        pytest.skip(f"no OpenSSH server: {why}")
    server = make_sshd(tmp_path_factory.mktemp("sshd"))
    try:
        server.start()
    except (OSError, RuntimeError) as e:
        pytest.skip(f"sshd could not start here: {e}")
    yield server
    server.stop()


@pytest.fixture
def remote_ws(sshd: Sshd) -> Iterator[Path]:
    """The remote workspace, emptied after each test."""
    yield sshd.remote_ws
    import shutil

    for p in sshd.remote_ws.iterdir():
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


@pytest.fixture
def ssh_settings(settings: Settings, sshd: Sshd) -> Settings:
    settings.backends.ssh_config = str(sshd.ssh_config)
    settings.backends.use = sshd.spec
    return settings
