"""Finding the container engine's CLI (on the system PATH only, like bwrap) and running it bounded."""

from __future__ import annotations

import io
import shutil
import subprocess
import threading
from dataclasses import dataclass

from grove.backends.base import BackendError
from grove.sandbox.backend import SYSTEM_PATH


def engine_command(engine: str, engine_args: list[str]) -> list[str]:
    path = shutil.which(engine, path=SYSTEM_PATH)
    if path is None:
        raise BackendError(
            f"{engine} is not installed (looked on {SYSTEM_PATH}); Debian: `apt-get install {engine}`"
            + (" (docker.io)" if engine == "docker" else "")
        )
    return [path, *engine_args]


def quick(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """A short engine call (run -d, inspect, rm); a hang or a missing binary is a BackendError."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise BackendError(f"`{' '.join(argv[:3])} ...` gave no answer within {timeout:g} s") from None
    except OSError as e:
        raise BackendError(f"cannot run {argv[0]}: {e}") from None


@dataclass
class Captured:
    text: str
    dropped: int
    exit_code: int | None
    timed_out: bool


def capture(argv: list[str], timeout: float, cap: int) -> Captured:
    """Run argv with stdout+stderr merged, keeping the first `cap` bytes; killed after `timeout` seconds."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    kept: list[bytes] = []
    counts = [0, 0]  # kept, dropped

    def pump() -> None:
        assert isinstance(proc.stdout, io.BufferedReader)  # a PIPE with the default buffering
        while chunk := proc.stdout.read1(65536):
            room = cap - counts[0]
            if room > 0:
                kept.append(chunk[:room])
                counts[0] += min(room, len(chunk))
            counts[1] += max(0, len(chunk) - max(room, 0))

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = False
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        proc.wait()
    reader.join(5)
    text = b"".join(kept).decode("utf-8", errors="replace")
    return Captured(text, counts[1], proc.returncode, timed_out)
