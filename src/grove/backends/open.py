"""Opening the backend a spec names, with the settings' limits (one object per session: SSH keeps its connection)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from grove.backends.base import Backend, BackendError
from grove.backends.spec import parse_spec
from grove.security.approval.policy import SafetyPolicy

if TYPE_CHECKING:
    from grove.backends.local import LocalBackend
    from grove.config import Settings
    from grove.config.backends import BackendsConfig


def backends_config(settings: Settings | None) -> BackendsConfig:
    from grove.config.backends import BackendsConfig

    return getattr(settings, "backends", None) or BackendsConfig()


def open_backend(
    text: str,
    settings: Settings | None,
    local: Callable[[], LocalBackend] | None = None,
    policy: Callable[[], SafetyPolicy] = SafetyPolicy,
) -> Backend | None:
    """The backend `text` names, connecting lazily (on its first command or file act); None = the local one, which
    grove.tools.context makes per call. A container mounts the workspace `local` makes file acts on, and gets a
    network only when the session's `policy()` allows one at its start; an SSH host's commands ask it per command
    (network, and whether an unattended run may go unsandboxed). A bad spec raises BackendError."""
    config = backends_config(settings)
    spec = parse_spec(text, config.named)
    if spec.kind == "local":
        return None
    if spec.kind == "container":
        from grove.backends.container.backend import ContainerBackend
        from grove.backends.local import LocalBackend

        make = local or (lambda: LocalBackend(Path.cwd(), settings=settings))
        return ContainerBackend(spec, config, make().workspace, make, lambda: policy().network)
    try:
        from grove.backends.ssh.backend import SshBackend
    except ImportError as e:
        raise BackendError(f"the ssh backend needs asyncssh ({e}): pip install 'grove-agent[ssh]'") from None

    return SshBackend(spec, config, policy)
