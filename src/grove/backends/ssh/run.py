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


def remote_line(root: str, command: str, timeout: float) -> str:
    secs = max(1, int(timeout + 0.999))
    inner = f"/bin/bash -c {shlex.quote(command)}"
    return (
        f"cd {shlex.quote(root)} || exit 125; "
        f"if command -v timeout >/dev/null 2>&1; then exec timeout -k 2 {secs} {inner}; else exec {inner}; fi"
    )


async def run_remote(
    conn: asyncssh.SSHClientConnection,
    root: str,
    command: str,
    *,
    timeout: float,
    output_bytes: int,
    name: str,
) -> Result:
    started = time.monotonic()
    proc = await conn.create_process(
        remote_line(root, command, timeout), stdin=asyncssh.DEVNULL, stderr=asyncssh.STDOUT, encoding=None
    )
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
