"""One remote command: bash in the workspace under coreutils `timeout` (the remote side kills it), a client-side
deadline as well, stdin closed, stderr merged into stdout, output kept up to a cap and the rest counted."""

from __future__ import annotations

import asyncio
import shlex
import time

import asyncssh

from grove.sandbox.types import Result

GRACE = 5  # seconds past the remote timeout's kill before the client gives up on the channel
TIMED_OUT = (124, 137)  # coreutils timeout: TERM sent (124), KILL after -k (137)


PROBE = "bwrap --ro-bind / / --unshare-all --die-with-parent true"


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def sandboxed(root: str, home: str | None, network: bool) -> str:
    """The host's bubblewrap around a command: the filesystem read-only but the workspace, a private /tmp, /dev
    and /proc, the remote home hidden (unless the workspace holds it), every namespace new (the network too,
    unless allowed), killed with its parent."""
    q = shlex.quote
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    if home and home != "/" and not _under(home, root):
        argv += ["--tmpfs", home]  # before the workspace's bind: a workspace inside the home stays visible
    argv += ["--bind", root, root, "--unshare-all", *(["--share-net"] if network else [])]
    argv += ["--die-with-parent", "--new-session", "--chdir", root]
    return " ".join(q(a) for a in argv)


def remote_line(
    root: str,
    command: str,
    timeout: float,
    *,
    bwrap: bool = False,
    home: str | None = None,
    network: bool = True,
) -> str:
    secs = max(1, int(timeout + 0.999))
    inner = f"/bin/bash -c {shlex.quote(command)}"
    if bwrap:
        inner = f"{sandboxed(root, home, network)} {inner}"
    return (
        f"cd {shlex.quote(root)} || exit 125; "
        f"if command -v timeout >/dev/null 2>&1; then exec timeout -k 2 {secs} {inner}; else exec {inner}; fi"
    )


async def run_remote(
    conn: asyncssh.SSHClientConnection, line: str, *, timeout: float, output_bytes: int, name: str
) -> Result:
    """Run a `remote_line` and collect its result."""
    started = time.monotonic()
    proc = await conn.create_process(line, stdin=asyncssh.DEVNULL, stderr=asyncssh.STDOUT, encoding=None)
    kept: list[bytes] = []
    size = dropped = 0

    async def pump() -> None:
        nonlocal size, dropped
        while chunk := await proc.stdout.read(65536):
            room = output_bytes - size
            if room > 0:
                kept.append(chunk[:room])
                size += min(room, len(chunk))
            dropped += max(0, len(chunk) - max(room, 0))
        await proc.wait()

    timed_out = False
    try:
        await asyncio.wait_for(pump(), timeout + GRACE)
    except TimeoutError:
        timed_out = True
        proc.close()  # the channel goes; sshd hangs up the session and its process group
    status = proc.exit_status
    if status is None or status < 0:
        signal = proc.exit_signal
        code = -9 if timed_out or signal else status
    else:
        code = status
    timed_out = timed_out or (status in TIMED_OUT and time.monotonic() - started >= timeout - 0.5)
    if timed_out:
        code = -9  # as the local sandbox reports a run it killed
    notes = [f"killed after {timeout:g}s"] if timed_out else []
    if dropped:
        notes.append(f"output cut: {dropped} bytes past the first {output_bytes} dropped")
    text = b"".join(kept).decode("utf-8", errors="replace")
    return Result(
        exit_code=code,
        stdout=text,
        stderr="",
        backend=name,
        timed_out=timed_out,
        truncated=bool(dropped),
        duration=time.monotonic() - started,
        notes=notes,
    )
