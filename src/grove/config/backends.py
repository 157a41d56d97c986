"""Backend settings (`backends:` in config.yaml): where the tools act — this machine (local), an SSH host or a
container — and the SSH connection's and the containers' limits. Keys and host keys are never here: they come from
the user's ssh config and known_hosts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from grove.dataclass_io import STRICT_KEYS

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as


@dataclass
class ContainerConfig:
    __pydantic_config__ = STRICT_KEYS

    engine_args: Annotated[
        list[str],
        Field(description="global flags for podman/docker before the command, e.g. [--runtime, runc]"),
    ] = field(default_factory=list)
    memory_mb: Annotated[int, Field(ge=16, description="memory cap of the session's container")] = 2048
    pids: Annotated[int, Field(ge=8, description="most processes and threads in the container")] = 256
    cpus: Annotated[float, Field(gt=0, description="CPUs the container may use")] = 2.0
    workdir: Annotated[str, Field(description="where the workspace is mounted inside the container")] = (
        "/workspace"
    )
    name: Annotated[
        str | None,
        Field(
            description="a long-lived container to reuse instead of one per session: started once (if none of "
            "that name exists) with the workspace mounted, kept after the session; grove never removes it"
        ),
    ] = None


@dataclass
class BackendsConfig:
    __pydantic_config__ = STRICT_KEYS

    use: Annotated[
        str,
        Field(
            description="where terminal and file tools act: local, ssh:HOST[:/remote/workspace], "
            "podman:IMAGE or docker:IMAGE, or a name from `named`; `--backend` on grove run/chat overrides it"
        ),
    ] = "local"
    named: Annotated[
        dict[str, str],
        Field(
            description="short names for backends, e.g. build: ssh:build.example:/srv/work (doctor checks each)"
        ),
    ] = field(default_factory=dict)
    ssh_config: Annotated[
        str | None, Field(description="OpenSSH client config to read; empty = ~/.ssh/config")
    ] = None
    known_hosts: Annotated[
        str | None,
        Field(
            description="known_hosts file; empty = the ssh config's UserKnownHostsFile, else ~/.ssh/known_hosts"
        ),
    ] = None
    connect_timeout: Annotated[float, Field(gt=0, le=300, description="seconds to connect and log in")] = 15.0
    keepalive: Annotated[
        float, Field(ge=0, le=3600, description="seconds between keepalives on the connection; 0 = none")
    ] = 30.0
    output_bytes: Annotated[
        int, Field(ge=1024, description="most bytes of a remote command's output kept; the rest is dropped")
    ] = 1_000_000
    remote_sandbox: Annotated[
        Literal["auto", "bwrap", "none"],
        Field(
            description="SSH: run remote commands in the host's bubblewrap (only the workspace writable, the "
            "remote home hidden, no network unless the session allows it); auto = when the host has a working "
            "bwrap, bwrap = refuse hosts without one, none = never"
        ),
    ] = "auto"
    container: ContainerConfig = field(default_factory=ContainerConfig)
