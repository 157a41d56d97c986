"""The SSH backend: one asyncssh connection per session, opened on first use and again after a drop; commands
with the remote workspace as their folder, file acts over SFTP (grove.backends.ssh.files)."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, TypeVar

import asyncssh

from grove.backends.base import BackendError
from grove.backends.spec import BackendSpec
from grove.backends.ssh.connect import open_connection
from grove.backends.ssh.files import SftpFiles
from grove.backends.ssh.loop import LoopThread
from grove.backends.ssh.run import GRACE, PROBE, remote_line, run_remote
from grove.backends.ssh.tree import SftpTree
from grove.config.backends import BackendsConfig
from grove.sandbox.gate import OPT_IN
from grove.sandbox.types import Result
from grove.security.approval.policy import SafetyPolicy

T = TypeVar("T")
# what a dropped connection looks like, from the socket up to the SFTP layer
DROPPED = (
    asyncssh.ConnectionLost,
    asyncssh.SFTPConnectionLost,
    asyncssh.DisconnectError,
    asyncssh.ChannelOpenError,
    ConnectionError,
    BrokenPipeError,
    EOFError,
)
FILE_ACT_SECONDS = 120.0


class SshBackend:
    kind = "ssh"

    def __init__(
        self, spec: BackendSpec, config: BackendsConfig, policy: Callable[[], SafetyPolicy] = SafetyPolicy
    ) -> None:
        self.spec, self.config = spec, config
        self._policy = policy  # asked per command: the session may allow the network later
        self.bwrap: bool | None = None  # the host's bubblewrap works (probed at the first connect)
        self.home: str | None = None
        self.name = spec.text
        self.root = spec.workspace or ""  # resolved (realpath on the server) at connect
        self.connects = 0  # how many times a connection was opened (1 + reconnects)
        self._clock: tuple[int, tuple[float, float] | None] | None = (
            None  # (connects, the host clock's offset)
        )
        self._held = _Held()
        self._connecting = asyncio.Lock()  # bound to the backend's loop at first use
        self._loop = LoopThread(f"grove-ssh-{spec.host}")
        # the session's context goes (or grove exits): connection closed, thread stopped
        self._finalizer = weakref.finalize(self, _shut, self._loop, self._held)

    # --- the connection

    async def _ensure(self) -> tuple[asyncssh.SSHClientConnection, asyncssh.SFTPClient]:
        async with self._connecting:  # tool calls from several threads: one connection, not one each
            return await self._ensure_locked()

    async def _ensure_locked(self) -> tuple[asyncssh.SSHClientConnection, asyncssh.SFTPClient]:
        held = self._held
        if held.conn is not None and held.sftp is not None and not held.conn.is_closed():
            return held.conn, held.sftp
        self._drop()
        conn = await open_connection(self.spec.host, self.config)
        try:
            sftp = await conn.start_sftp_client()
            home = await sftp.realpath(".")  # an SFTP session starts in the user's home
            root = await sftp.realpath(self.spec.workspace or ".")
            if not await sftp.isdir(root):
                raise BackendError(
                    f"{self.name}: the remote workspace {root} is not a folder; create it "
                    f"(`ssh {self.spec.host} mkdir -p {root}`) or name another"
                )
            if self.bwrap is None and self.config.remote_sandbox != "none":
                try:
                    probe = await conn.run(PROBE, stdin=asyncssh.DEVNULL, timeout=30)
                    self.bwrap = probe.exit_status == 0
                except (asyncssh.ProcessError, TimeoutError):  # a hanging or odd bwrap is no sandbox
                    self.bwrap = False
            if self.config.remote_sandbox == "bwrap" and not self.bwrap:
                raise BackendError(
                    f"{self.name}: backends.remote_sandbox is bwrap, but the host has no working bubblewrap; "
                    "install it there (Debian: apt-get install bubblewrap) or set remote_sandbox: auto"
                )
        except asyncssh.SFTPError as e:
            conn.close()
            raise BackendError(f"{self.name}: the remote workspace is not usable ({e.reason})") from None
        except BaseException:
            conn.close()
            raise
        self._held.conn, self._held.sftp, self.root, self.home = conn, sftp, root, home
        self.connects += 1
        return conn, sftp

    def _drop(self) -> None:
        if self._held.conn is not None:
            self._held.conn.close()
        self._held.conn = self._held.sftp = None

    def _call(self, act: Callable[[], Coroutine[Any, Any, T]], seconds: float) -> T:
        try:
            return self._loop.call(act(), seconds + self.config.connect_timeout)
        except TimeoutError:
            self._loop.loop.call_soon_threadsafe(self._drop)
            raise BackendError(
                f"{self.name}: no answer within {seconds:g} s; the connection was closed"
            ) from None

    def _retrying(self, act: Callable[[asyncssh.SFTPClient], Awaitable[T]]) -> Coroutine[Any, Any, T]:
        """An idempotent SFTP act, tried again once on a fresh connection when the old one has dropped."""

        async def attempt() -> T:
            for tries in (1, 2):
                _conn, sftp = await self._ensure()
                try:
                    return await act(sftp)
                except DROPPED as e:
                    self._drop()
                    if tries == 2:
                        raise BackendError(f"{self.name}: the connection dropped twice ({e})") from None
            raise AssertionError("unreachable")

        return attempt()

    # --- Backend

    def _line(self, command: str, timeout: float, network: bool | None = None) -> str:
        return remote_line(
            self.root,
            command,
            timeout,
            bwrap=self.sandboxed,
            home=self.home,
            network=self._policy().network and network is not False,
        )

    @property
    def sandboxed(self) -> bool:
        return bool(self.bwrap) and self.config.remote_sandbox != "none"

    def _refusal(self) -> str | None:
        """As the local sandbox's rule: with nobody to approve and no isolation, commands need an explicit opt-in."""
        policy = self._policy()
        if self.sandboxed or not policy.unattended or policy.allow_unisolated:
            return None
        why = (
            "backends.remote_sandbox is none"
            if self.config.remote_sandbox == "none"
            else "it has no working bwrap"
        )
        return (
            f"refused: this run is unattended and commands on {self.name} would run NOT sandboxed ({why}), so they "
            "could read and change anything the remote user can. To fix: install bubblewrap on the host (Debian: "
            f"apt-get install bubblewrap); or, accepting that risk, allow it with {OPT_IN}"
        )

    def run(self, command: str, *, timeout: float, network: bool | None = None) -> Result:
        async def once(conn: asyncssh.SSHClientConnection) -> Result:
            line = self._line(command, timeout, network)
            return await run_remote(
                conn, line, timeout=timeout, output_bytes=self.config.output_bytes, name=self.name
            )

        async def attempt() -> Result:
            conn, _sftp = await self._ensure()
            refusal = self._refusal()
            if refusal:
                return Result(126, refusal, "", self.name, notes=["refused: no isolation"], refused=True)
            try:
                return await once(conn)
            except asyncssh.ChannelOpenError:  # refused before it started: safe to try once more
                self._drop()
                conn, _sftp = await self._ensure()
            except DROPPED as e:
                self._drop()
                raise BackendError(
                    f"{self.name}: the connection dropped while the command ran ({e}); it may or may not have "
                    "finished: check its effects before running it again (the next call reconnects)"
                ) from None
            return await once(conn)

        return self._call(attempt, timeout + GRACE + 5)

    @contextmanager
    def files(self) -> Iterator[SftpFiles]:
        def call(act: Callable[[asyncssh.SFTPClient], Awaitable[Any]]) -> Any:
            return self._call(lambda: self._retrying(act), FILE_ACT_SECONDS)

        self._call(self._ensure, FILE_ACT_SECONDS)  # the root is known before paths are checked against it
        yield SftpFiles(call, self.root, self.name)

    def make_folder(self, prefix: str) -> str:
        """A new empty folder (mode 0700) under the host's /tmp, e.g. a delegated child's own workspace."""
        import secrets

        async def made(sftp: asyncssh.SFTPClient) -> str:
            path = f"/tmp/{prefix}{secrets.token_hex(6)}"
            await sftp.mkdir(path, asyncssh.SFTPAttrs(permissions=0o700))
            return str(await sftp.realpath(path))

        try:
            return self._call(lambda: self._retrying(made), FILE_ACT_SECONDS)
        except asyncssh.SFTPError as e:
            raise BackendError(f"{self.name}: could not make a folder under /tmp ({e.reason})") from None

    def remove_folder(self, path: str) -> None:
        """Remove a folder this backend made, with all in it (links inside removed, never followed)."""

        async def removed(sftp: asyncssh.SFTPClient) -> None:
            await sftp.rmtree(path, ignore_errors=True)

        self._call(lambda: self._retrying(removed), FILE_ACT_SECONDS)

    def tree(self) -> SftpTree:
        return SftpTree(self)

    def clock_ns(self) -> int:
        """The host's clock now (ns), less how unsure that is: the host's `date` read once per connection (grove's
        own command) gives the offset from this machine's clock, the round trip bounds its error. 0 when it cannot
        tell, so that nothing is trusted by its mtime (see WorkspaceTree.settled_before)."""

        async def ask() -> tuple[float, float] | None:
            conn, _sftp = await self._ensure()
            try:
                sent = time.time()
                done = await conn.run("date +%s.%N", stdin=asyncssh.DEVNULL, timeout=15)
                back = time.time()
                host = float(str(done.stdout).strip().replace("N", "0"))  # %N unknown: whole seconds
            except (asyncssh.Error, asyncssh.ProcessError, TimeoutError, ValueError):
                return None
            return host - (
                sent + back
            ) / 2, back - sent + 1.0  # (offset, error: the trip, whole-second dates)

        if self._clock is None or self._clock[0] != self.connects:
            measured = self._call(ask, 20)
            self._clock = (self.connects, measured)  # measured again after a reconnect (perhaps another host)
        known = self._clock[1]
        if known is None:
            return 0
        offset, error = known
        return int((time.time() + offset - error) * 10**9)

    def check(self) -> tuple[bool, str]:
        try:
            result = self.run("uname -sr", timeout=15)
        except BackendError as e:
            return False, str(e)
        if result.exit_code != 0:
            return (
                False,
                f"{self.name}: connected, but a test command failed (exit {result.exit_code}): {result.stdout[:200]}",
            )
        system = result.stdout.strip()
        return True, (
            f"{self.name}: connected (host key checked against known_hosts), workspace {self.root}, {system}; "
            + (
                "commands run in the host's bubblewrap (workspace writable, home hidden, no network unless allowed)"
                if self.sandboxed
                else "commands run as the remote user, NOT sandboxed (install bubblewrap there to change that)"
            )
        )

    def close(self) -> None:
        self._finalizer()

    def __repr__(self) -> str:
        return f"SshBackend({self.name!r})"


@dataclass
class _Held:
    """The live connection, apart from the backend so the finalizer can close it without keeping the backend."""

    conn: asyncssh.SSHClientConnection | None = None
    sftp: asyncssh.SFTPClient | None = None


def _shut(loop: LoopThread, held: _Held) -> None:
    if loop.loop.is_closed():
        return
    conn, held.conn, held.sftp = held.conn, None, None
    if conn is not None:

        async def closed() -> None:
            conn.close()
            await conn.wait_closed()

        with suppress(Exception):  # closing is best effort: the process may be exiting
            loop.call(closed(), 2)
    loop.stop()
