"""Opening one SSH connection the way the user's OpenSSH client would: their ssh config (Hostname, Port, User,
IdentityFile, UserKnownHostsFile...), their keys and agent, and their known_hosts — an unknown or changed host key
is refused, never accepted."""

from __future__ import annotations

import os
from typing import Any

import asyncssh

from grove.backends.base import BackendError
from grove.config.backends import BackendsConfig


def connect_options(host: str, config: BackendsConfig) -> dict[str, Any]:
    user, _, name = host.rpartition("@")
    options: dict[str, Any] = {
        "host": name,
        "connect_timeout": config.connect_timeout,
        "keepalive_interval": config.keepalive or None,
    }
    if user:
        options["username"] = user
    if config.ssh_config:
        options["config"] = [os.path.expanduser(config.ssh_config)]
    # never None: asyncssh reads None as "do not check host keys"; () is the config's files or ~/.ssh/known_hosts
    if config.known_hosts:
        options["known_hosts"] = os.path.expanduser(config.known_hosts)
    return options


async def open_connection(host: str, config: BackendsConfig) -> asyncssh.SSHClientConnection:
    try:
        return await asyncssh.connect(**connect_options(host, config))
    except asyncssh.HostKeyNotVerifiable as e:
        raise BackendError(
            f"ssh:{host}: the host key is not the one in known_hosts (or the host is not in it): refused ({e.reason}). "
            f"If the host was really reinstalled, check its fingerprint out of band, then `ssh-keygen -R HOST` and "
            f"connect once with `ssh {host}` to record the new key; grove never accepts a host key by itself"
        ) from None
    except asyncssh.PermissionDenied as e:
        raise BackendError(
            f"ssh:{host}: login refused ({e.reason}). Check that `ssh {host} true` works without a password: "
            "a key in your ssh config (IdentityFile) or agent, and the right User"
        ) from None
    except asyncssh.DisconnectError as e:
        raise BackendError(f"ssh:{host}: the server closed the connection ({e.reason})") from None
    except (OSError, TimeoutError) as e:
        raise BackendError(
            f"ssh:{host}: cannot connect ({e.strerror or e or 'timed out'}); check the host name, port and "
            f"network (`ssh {host} true`)"
        ) from None
    except (asyncssh.Error, ValueError) as e:  # a bad ssh config or key file
        raise BackendError(f"ssh:{host}: {e}") from None
