"""The container backend against a real engine (Podman or Docker, a from-scratch busybox image): no network,
the workspace mounted, the container removed on close; skipped with the reason where no engine runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.backends.engines import Engine

from grove.backends.base import BackendError
from grove.backends.container.backend import ContainerBackend
from grove.backends.local import LocalBackend
from grove.backends.open import open_backend
from grove.config import Settings


def _names(engine: Engine) -> list[str]:
    out = subprocess.run(
        [engine.name, *engine.args, "ps", "-a", "--format", "{{.Names}}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return out.stdout.split()


def test_a_session_container_has_no_network_and_goes_on_close(
    container_settings: Settings, engine: Engine, workspace: Path
) -> None:
    b = open_backend(container_settings.backends.use, container_settings, lambda: LocalBackend(workspace))
    assert isinstance(b, ContainerBackend)
    (workspace / "in.txt").write_text("from the host")
    try:
        result = b.run("ls /sys/class/net; cat in.txt; echo; pwd", timeout=10)
        assert result.stdout.split() == ["lo", "from", "the", "host", "/workspace"]
        assert b.container in _names(engine)
        assert b.run("echo again", timeout=10).stdout == "again\n"  # the same container, not a new one
    finally:
        b.close()
    assert b.container not in _names(engine)


def test_doctor_check_names_the_missing_image(container_settings: Settings, workspace: Path) -> None:
    b = open_backend(
        container_settings.backends.use + "-missing", container_settings, lambda: LocalBackend(workspace)
    )
    ok, text = b.check()
    assert not ok and "image not found locally" in text


def test_the_network_comes_only_when_the_session_allows_it(
    container_settings: Settings, workspace: Path
) -> None:
    from grove.security.approval.policy import SafetyPolicy

    policy = SafetyPolicy(network=True)
    b = open_backend(
        container_settings.backends.use, container_settings, lambda: LocalBackend(workspace), lambda: policy
    )
    try:
        names = b.run("ls /sys/class/net", timeout=10).stdout.split()
    finally:
        b.close()
    assert "lo" in names and len(names) > 1  # an interface of its own besides loopback


def test_a_named_container_is_reused_and_kept(
    container_settings: Settings, engine: Engine, workspace: Path, tmp_path: Path
) -> None:
    """backends.container.name: one long-lived container for every session on this workspace, never removed by
    grove; a workspace it does not mount is refused, saying which it mounts."""
    import secrets

    name = f"grove-test-keep-{secrets.token_hex(4)}"
    container_settings.backends.container.name = name

    def session(ws: Path) -> ContainerBackend:
        b = open_backend(container_settings.backends.use, container_settings, lambda: LocalBackend(ws))
        assert isinstance(b, ContainerBackend)
        return b

    try:
        first = session(workspace)
        assert first.run("echo kept > /tmp/mark; cat /tmp/mark", timeout=10).stdout == "kept\n"
        first.close()
        assert name in _names(engine)  # not removed with the session
        second = session(workspace)
        assert second.run("cat /tmp/mark", timeout=10).stdout == "kept\n"  # the same container
        second.close()
        other = tmp_path / "other-ws"
        other.mkdir()
        with pytest.raises(BackendError, match=r"mounts .*, not this workspace"):
            session(other).run("true", timeout=10)
    finally:
        subprocess.run([engine.name, *engine.args, "rm", "-f", name], capture_output=True, timeout=60)
    assert name not in _names(engine)
