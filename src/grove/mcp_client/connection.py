"""One MCP server's connection on the manager's event loop: an owner task holds the SDK `Client` open (its
context must be entered and left in one task), calls run in other tasks; a dead connection is noticed and the
next call reconnects."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from grove.config.mcp import McpServerConfig, expand_refs
from grove.mcp_client.caller import Caller, Callers
from grove.mcp_client.roots import Roots

T = TypeVar("T")
HTTP_PROBE_AFTER = 5.0  # seconds without an answer after which an HTTP connection is pinged before an act


class McpUnavailable(Exception):
    """The server could not be reached (start, connect or a transport failure); the message says which."""


# Errors that mean the transport is gone, not that the server answered with an error.
def _transport_errors() -> tuple[type[BaseException], ...]:
    import anyio

    return (
        anyio.ClosedResourceError,
        anyio.BrokenResourceError,
        anyio.EndOfStream,
        ConnectionError,
        EOFError,
        OSError,
    )


def _expanded(values: dict[str, str], server: str, kind: str) -> dict[str, str]:
    try:
        return {k: expand_refs(v) for k, v in values.items()}
    except KeyError as e:
        raise McpUnavailable(
            f"MCP server '{server}': {kind} refers to ${{{e.args[0]}}}, which is not set; export it first"
        ) from None


class Connection:
    """Connects lazily, keeps the connection, reconnects after it died."""

    def __init__(self, config: McpServerConfig, log_dir: Path | None = None) -> None:
        self.config = config
        self.log_dir = log_dir
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._lock: asyncio.Lock | None = None
        self._last_ok = 0.0
        self.connects = 0  # how many times a connection was made (1 + reconnects)
        self.callers = Callers()  # the calls in flight: whom the server's own requests are answered for
        self.roots = Roots()

    def _stale(self) -> bool:
        """A stdio ping costs well under a millisecond, so always; over HTTP only after a quiet while."""
        return bool(self.config.command) or time.monotonic() - self._last_ok > HTTP_PROBE_AFTER

    @property
    def alive(self) -> bool:
        return self._client is not None and self._owner is not None and not self._owner.done()

    def _transport(self, errlog: Any) -> Any:
        """The SDK transport: an async context yielding the read and write streams."""
        cfg = self.config
        if cfg.command:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=cfg.command,
                args=list(cfg.args),
                env=_expanded(cfg.env, cfg.name, "env") or None,
                cwd=cfg.cwd,
            )
            return stdio_client(params, errlog=errlog) if errlog is not None else stdio_client(params)
        return _http_transport(cfg.url or "", _expanded(cfg.headers, cfg.name, "headers"), cfg.timeout)

    async def _own(self, ready: asyncio.Future[Any]) -> None:
        """The owner task: enters the client, waits for stop (or for the transport to die), leaves it."""
        self._stop = asyncio.Event()
        try:
            from mcp import Client  # a broken SDK install is a connect failure the caller sees, not a wait

            async with contextlib.AsyncExitStack() as stack:
                transport = self._transport(self._errlog(stack))
                client = Client(
                    transport, read_timeout_seconds=self.config.timeout, cache=None, **self._callbacks()
                )
                await stack.enter_async_context(client)
                self._client = client
                if not ready.done():
                    ready.set_result(client)
                await self._stop.wait()
        except BaseException as e:  # connect failures go to the caller; later ones end the connection
            if not ready.done():
                ready.set_exception(e)
            if isinstance(e, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
        finally:
            self._client = None

    def _callbacks(self) -> dict[str, Any]:
        """What grove answers of a server's own requests (the SDK declares the capabilities from them)."""
        from mcp import types

        from grove import __version__
        from grove.mcp_client.elicitation import answer_elicitation
        from grove.mcp_client.sampling import answer_sampling
        from grove.mcp_client.server_log import LEVEL, record
        from grove.mcp_client.tasks import TasksExtension

        cfg = self.config

        async def sampling(_context: Any, params: Any) -> Any:
            return await answer_sampling(cfg, self.callers.current(), params)

        async def elicitation(_context: Any, params: Any) -> Any:
            return await answer_elicitation(cfg, self.callers.current(), params)

        async def list_roots(_context: Any) -> Any:
            return self.roots.answer(self.callers.current())

        async def logging(params: Any) -> None:
            record(self.log_dir, cfg.name, params)

        return {
            "sampling_callback": sampling,
            "elicitation_callback": elicitation,
            "list_roots_callback": list_roots,
            "logging_callback": logging,
            "log_level": LEVEL,
            "client_info": types.Implementation(name="grove", version=__version__),
            "extensions": [TasksExtension()],
        }

    def _errlog(self, stack: contextlib.AsyncExitStack) -> Any:
        """A stdio server's stderr goes to logs/mcp-<name>.log, not over the user's terminal."""
        if not self.config.command or self.log_dir is None:
            return None
        try:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            return stack.enter_context(
                open(self.log_dir / f"mcp-{self.config.name}.log", "a", encoding="utf-8")
            )
        except OSError:
            return None

    async def client(self) -> Any:
        """The connected client, connecting (again) when there is none."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.alive:
                return self._client
            await self._teardown()
            ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            # a fresh context: the SDK's reader tasks start in the owner's, and must not inherit this call's caller
            self._owner = asyncio.create_task(self._own(ready), context=contextvars.Context())
            try:
                client = await asyncio.wait_for(asyncio.shield(ready), self.config.timeout)
            except TimeoutError:
                await self._teardown()
                raise McpUnavailable(
                    f"MCP server '{self.config.name}' did not answer within {self.config.timeout:g}s of starting"
                ) from None
            except McpUnavailable:
                raise
            except Exception as e:
                await self._teardown()
                raise McpUnavailable(
                    f"MCP server '{self.config.name}' could not start: {_describe(e)}"
                ) from e
            self.connects += 1
            return client

    async def run(
        self, op: Callable[[Any], Awaitable[T]], *, retry: bool = True, caller: Caller | None = None
    ) -> T:
        """`op(client)` for `caller` (the session the server's own requests are answered for), see `_run`."""
        with self.callers.calling(caller):
            return await self._run(op, retry, caller)

    async def _run(self, op: Callable[[Any], Awaitable[T]], retry: bool, caller: Caller | None) -> T:
        """`op(client)` with the per-call timeout; a transport failure drops the connection and, when `retry`
        (the request cannot have had an effect: listing, reading), tries once more on a new one. Before an act
        (`retry` False) a connection that may have died meanwhile is pinged, so a crashed server is restarted
        before the act is sent, not after it is lost."""
        if not retry and self.alive and self._stale():
            try:
                await self._run(_probe, True, None)
            except McpUnavailable:
                raise
            except Exception:  # a server that answers the probe with an error is alive
                pass
        try:
            return await self._attempt(op, caller)
        except _transport_errors() as e:
            await self._teardown()
            if not retry:
                raise McpUnavailable(
                    f"MCP server '{self.config.name}' connection broke ({_describe(e)}); it restarts on the next call"
                ) from e
        except Exception as e:
            if not _is_closed(e):
                raise
            await self._teardown()
            if not retry:
                raise McpUnavailable(
                    f"MCP server '{self.config.name}' connection closed ({_describe(e)}); it restarts on the next "
                    "call. Whether this call had an effect is unknown"
                ) from e
        return await self._attempt(op, caller)

    async def _attempt(self, op: Callable[[Any], Awaitable[T]], caller: Caller | None = None) -> T:
        """One try of `op` on the (re)connected client, bounded by the server's timeout."""
        client = await self.client()
        if self.roots.changed_for(caller):
            await _roots_changed(client)
        try:
            result = await asyncio.wait_for(op(client), self.config.timeout)
        except TimeoutError:
            raise McpUnavailable(
                f"MCP server '{self.config.name}' did not answer within {self.config.timeout:g}s"
            ) from None
        self._last_ok = time.monotonic()
        return result

    async def _teardown(self) -> None:
        owner, self._owner = self._owner, None
        if self._stop is not None:
            self._stop.set()
        if owner is not None and not owner.done():
            try:
                await asyncio.wait_for(owner, 5)
            except (Exception, asyncio.CancelledError):  # a server that will not stop is cancelled
                owner.cancel()
        self._client = None

    async def close(self) -> None:
        await self._teardown()


async def _roots_changed(client: Any) -> None:
    """Tell a handshake-era server its roots changed (2026-07-28 dropped the notification: it asks per call)."""
    import warnings

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    if client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.send_roots_list_changed()


async def _probe(client: Any) -> Any:
    """A ping: the 2026-07-28 protocol dropped it (a modern server answers with an error, which still proves
    it is there); a dead transport fails it either way."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return await client.send_ping()


def _is_closed(e: BaseException) -> bool:
    """The SDK reports a dead transport as an MCPError "Connection closed" (code -32000)."""
    from mcp.shared.exceptions import MCPError

    return isinstance(e, MCPError) and "closed" in str(e.error.message).lower()


def _describe(e: BaseException) -> str:
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(_describe(x) for x in e.exceptions[:3])
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str], timeout: float) -> AsyncIterator[Any]:
    """Streamable HTTP with the configured headers; the SDK takes headers through the HTTP client it is given."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    # reads may wait for a long tool; the per-call timeout bounds them from outside
    limits = httpx2.Timeout(min(timeout, 30.0), read=max(timeout, 30.0))
    http = httpx2.AsyncClient(headers=headers or None, timeout=limits)
    async with http, streamable_http_client(url, http_client=http) as streams:
        yield streams
