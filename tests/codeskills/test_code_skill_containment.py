"""Generated code that reaches for the network, writes outside its scratch dir or never ends fails, unstored."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from grove.codeskills.create import create_code_skill
from grove.sandbox import Limits
from grove.skills.manage import SkillManager

TESTS = "from skill import solve\n\n\ndef test_it():\n    assert solve() == 'ok'\n"


@pytest.fixture
def mgr(grove_home: Path) -> SkillManager:
    (grove_home / "skills").mkdir(parents=True)
    return SkillManager(grove_home / "skills")


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on the host's loopback: reachable by any unsandboxed process, so a real escape would show."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    got: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                got.append(conn.recv(100))
                conn.sendall(b"ok")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], got
    stop.set()
    thread.join()
    server.close()


# How the network fails depends on the backend: bubblewrap's empty network namespace refuses the connection,
# Landlock's seccomp filter refuses to create the socket at all.
NETWORK_ERROR = {"bwrap": "ConnectionRefused", "landlock": "PermissionError"}


def test_reaching_the_network_fails_and_is_not_stored(mgr: SkillManager, listener) -> None:
    from grove.sandbox import detect_backend

    backend = detect_backend().name
    if backend not in NETWORK_ERROR:
        pytest.skip(f"the {backend} backend does not isolate the network (reported as 'no isolation')")
    port, got = listener
    code = (
        "import socket\n\n\ndef solve() -> str:\n"
        f"    with socket.create_connection(('127.0.0.1', {port}), timeout=3) as s:\n"
        "        s.sendall(b'hello')\n"
        "        return s.recv(10).decode()\n"
    )
    out = create_code_skill(mgr, "phone-home", "Talks to a server.", code, TESTS)
    assert not out.stored
    assert "test_it" in out.message and NETWORK_ERROR[backend] in out.message, out.message
    assert got == []  # the host-side server never heard from it
    assert not mgr.exists("phone-home")


def test_writing_outside_scratch_fails_and_is_not_stored(mgr: SkillManager, tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    code = f"def solve() -> str:\n    open({str(target)!r}, 'w').write('x')\n    return 'ok'\n"
    out = create_code_skill(mgr, "escape-writer", "Writes a file.", code, TESTS)
    assert not out.stored and "test_it" in out.message
    assert not target.exists()
    code_home = "import os\n\n\ndef solve() -> str:\n    open('/usr/lib/grove-pwned', 'w').write('x')\n    return 'ok'\n"
    assert not create_code_skill(mgr, "escape-writer", "Writes a file.", code_home, TESTS).stored
    assert not Path("/usr/lib/grove-pwned").exists()
    assert not mgr.exists("escape-writer")


def test_an_endless_loop_is_killed_and_not_stored(mgr: SkillManager) -> None:
    code = "def solve() -> str:\n    while True:\n        pass\n"
    out = create_code_skill(mgr, "forever", "Never ends.", code, TESTS, limits=Limits(timeout=1.5))
    assert not out.stored and "killed after 1.5s" in out.message
    assert not mgr.exists("forever")


def test_memory_hog_hits_the_limit_and_is_not_stored(mgr: SkillManager) -> None:
    code = "def solve() -> str:\n    blob = bytearray(2 * 1024**3)\n    return 'ok'\n"
    out = create_code_skill(mgr, "hog", "Eats memory.", code, TESTS, limits=Limits(timeout=10, memory_mb=256))
    assert not out.stored and "MemoryError" in out.message
