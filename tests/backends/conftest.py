"""Fixtures: a real sshd per test module and a container engine with a from-scratch image (each skipped with the
reason when the machine cannot), and settings pointing at them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.backends.engines import IMAGE, Engine, find_engine
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


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    found, why = find_engine(tmp_path_factory.mktemp("image"))
    if found is None:
        pytest.skip(f"no container engine: {why}")
    return found


@pytest.fixture
def container_settings(settings: Settings, engine: Engine) -> Settings:
    settings.backends.use = f"{engine.name}:{IMAGE}"
    settings.backends.container.engine_args = engine.args
    return settings
