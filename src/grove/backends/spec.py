"""A backend as written on the command line or in config: `local`, `ssh:HOST[:/remote/workspace]`,
`podman:IMAGE` / `docker:IMAGE`, or a name."""

from __future__ import annotations

from dataclasses import dataclass

from grove.backends.base import BackendError

KINDS = ("local", "ssh", "container")
ENGINES = ("podman", "docker")
HELP = (
    "write local, ssh:HOST or ssh:HOST:/remote/workspace (HOST as in your ssh config, user@host allowed), "
    "or podman:IMAGE / docker:IMAGE"
)


@dataclass(frozen=True)
class BackendSpec:
    kind: str  # local | ssh | container
    host: str = ""  # as the ssh config knows it; may be user@host or host with a Port in the config
    workspace: str | None = None  # absolute remote folder; None = the remote user's home
    engine: str = ""  # container: podman | docker
    image: str = ""  # container: the image, e.g. docker.io/library/python:3.12-slim

    @property
    def text(self) -> str:
        if self.kind == "local":
            return "local"
        if self.kind == "container":
            return f"{self.engine}:{self.image}"
        return f"ssh:{self.host}" + (f":{self.workspace}" if self.workspace else "")


def parse_spec(text: str, named: dict[str, str] | None = None) -> BackendSpec:
    """The spec `text` stands for (a name from `backends.named` first); bad input raises BackendError."""
    raw = (text or "").strip()
    if named and raw in named:
        text = f"{named[raw].strip()} (backends.named.{raw})"
        raw = named[raw].strip()
    if raw == "local":
        return BackendSpec("local")
    kind, sep, rest = raw.partition(":")
    if kind in ENGINES and sep:
        if not rest or any(c.isspace() for c in rest) or rest.startswith("-"):
            raise BackendError(f"backend {text!r} names no usable image: {HELP}")
        return BackendSpec("container", engine=kind, image=rest)
    if kind != "ssh" or not sep:
        names = f"; or one of the names in backends.named: {', '.join(sorted(named))}" if named else ""
        raise BackendError(f"unknown backend {text!r}: {HELP}{names}")
    host, _, workspace = rest.partition(":")
    if not host or any(c.isspace() for c in host) or host.startswith("-"):
        raise BackendError(f"backend {text!r} names no usable host: {HELP}")
    if workspace and not workspace.startswith("/"):
        raise BackendError(
            f"backend {text!r}: the remote workspace must be an absolute path such as /srv/work, got {workspace!r}"
        )
    return BackendSpec("ssh", host, workspace.rstrip("/") or ("/" if workspace else None))
