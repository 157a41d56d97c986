"""The listening socket of `grove serve` and `grove mcp serve --http`, bound before the server starts, so a
busy port is one `grove:` line, not a traceback from inside uvicorn."""

from __future__ import annotations

import errno
import socket

from grove.errors import GroveError


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (0 = any free port); GroveError saying what to do when it cannot be."""
    name = host.strip("[]")
    family = socket.AF_INET6 if ":" in name else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a restart reuses the port
    try:
        sock.bind((name, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise GroveError(
                f"port {port} on {host} is in use (another grove serve?): stop that process, or pick another "
                "port with --port"
            ) from exc
        raise GroveError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock
