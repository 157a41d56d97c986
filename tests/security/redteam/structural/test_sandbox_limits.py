"""Red team: a run's processes die with grove (even when grove is SIGKILLed), and the per-command disk cap counts
what the filesystem really uses (directory blocks, files deleted while still open and written)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from grove.sandbox import Limits, run
from grove.sandbox.runner import make_scratch

ATTEMPTS = ["background children outlive a SIGKILLed grove", "nohup child outlives a SIGKILLed grove",
            "many directories", "file deleted while open and still written"]  # fmt: skip


def _pids_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if (
                os.path.basename(argv[0]) == b"sleep" and token.encode() in argv
            ):  # the sleeps, not their parents
                found.append(int(entry.name))
    return found


def _poll(check: object, tries: int = 400) -> bool:
    for _ in range(tries):  # bounded: the outcome, not the time it took, is asserted
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("style", ["&", "nohup"])
def test_children_die_with_grove(backend: str, tmp_path: Path, style: str) -> None:
    ws = make_scratch(tmp_path)
    token = f"1000.{uuid.uuid4().int % 10**9}"
    start = f"sleep {token} &" if style == "&" else f"nohup sleep {token} >/dev/null 2>&1 &"
    script = (
        "import sys; from grove.sandbox import Limits, run\n"
        f"run(['/bin/bash', '-c', {start + ' ' + start + ' wait'!r}], {str(ws)!r}, Limits(timeout=600),"
        f" backend={backend!r})\n"
    )
    grove = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        assert _poll(lambda: len(_pids_with(token)) >= 2), "the sandboxed children never started"
        os.kill(grove.pid, signal.SIGKILL)
        grove.wait()
        gone = _poll(lambda: not _pids_with(token))
        left = _pids_with(token)
    finally:
        for pid in _pids_with(token):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert gone, f"{backend}: escape, {len(left)} children outlived grove: {left}"


DISK_ATTEMPTS = {
    "many directories": "for i in $(seq 1 4000); do mkdir -p d$i/e/f; done; sleep 3",
    "deleted while open": "python3 -c \"\nimport os,time\nf=open('big','wb'); os.unlink('big')\n"
    "for _ in range(12): f.write(b'x'*(1<<20)); f.flush(); os.fsync(f.fileno())\ntime.sleep(3)\"",
}


@pytest.mark.parametrize("attempt", list(DISK_ATTEMPTS))
def test_disk_cap_counts_what_the_filesystem_uses(backend: str, tmp_path: Path, attempt: str) -> None:
    ws = make_scratch(tmp_path)
    # 4 MB cap: 12 MB written through a deleted file, or ~48 MB of directory blocks (4000 x 3 x 4 KiB)
    r = run(["/bin/bash", "-c", DISK_ATTEMPTS[attempt]], ws, Limits(timeout=60, disk_mb=4), backend=backend)
    assert any("disk cap" in n for n in r.notes), f"{backend}: escape ({attempt}): {r.notes} {r.exit_code}"


@pytest.fixture(params=["bwrap", "landlock", "rlimit"])
def backend(request: pytest.FixtureRequest) -> str:
    from grove.sandbox.backend import detect_backend, landlock_info

    name = str(request.param)
    if name == "bwrap" and detect_backend().name != "bwrap":
        pytest.skip(f"bwrap not usable: {detect_backend().reason}")
    if name == "landlock" and landlock_info() is None:
        pytest.skip("no Landlock ABI, or not x86_64")
    return name
