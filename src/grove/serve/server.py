"""Running the app under uvicorn: in the foreground (the CLI) or in a thread (tests, benchmarks), reporting the
address it really bound (port 0 = any free port)."""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

GRACE_SECONDS = 3


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
        mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is loopback too (3.11 says no)
        return address.is_loopback or bool(mapped and mapped.is_loopback)
    except ValueError:
        return False  # a name: it may resolve to anything


@dataclass
class Running:
    """A server started with `start_in_thread`; `stop()` shuts it down and waits."""

    server: Any
    thread: threading.Thread
    host: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def _server(app: Any, host: str, port: int, log_level: str) -> Any:
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        lifespan="on",
        server_header=False,
        # Ctrl-C: open streams get this long, then are cancelled (their turns told to stop), not waited out
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    return uvicorn.Server(config)


def bound_port(server: Any) -> int:
    return int(server.servers[0].sockets[0].getsockname()[1])


def start_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning") -> Running:
    """Starts uvicorn in a daemon thread and returns once it listens."""
    server = _server(app, host, port, log_level)
    server.install_signal_handlers = lambda: None  # signals belong to the main thread's owner
    thread = threading.Thread(target=server.run, name="grove-serve", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError(f"grove serve could not start on {host}:{port} (see the log above)")
        thread.join(0.01)
    return Running(server, thread, host, bound_port(server))


def run_foreground(
    app: Any, host: str, port: int, on_ready: Callable[[int], None], log_level: str = "info"
) -> None:
    """Serves until SIGINT/SIGTERM (uvicorn's handlers); `on_ready(port)` once listening. A port that cannot
    be bound is a GroveError before anything starts."""
    import asyncio

    from grove.serve.bind import listen

    sock = listen(host, port)
    server = _server(app, host, port, log_level)

    async def main() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            on_ready(bound_port(server))
        await task

    asyncio.run(main())
