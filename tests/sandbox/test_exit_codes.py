"""Exit codes are the command's own: a finished command is never reported as killed, on every backend."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from grove.sandbox import Limits, run

QUICK = (["/bin/true"], ["ls", "/usr"], ["cat", "note.txt"], ["echo", "hello"])
RUNS = 200


def test_two_hundred_quick_commands_all_exit_zero(backend: str, workspace: Path) -> None:
    (workspace / "note.txt").write_text("a note\n")
    seen: Counter[int | None] = Counter()
    for i in range(RUNS):
        r = run(QUICK[i % len(QUICK)], workspace, backend=backend)
        seen[r.exit_code] += 1
        if r.exit_code == 0:
            assert r.stdout or QUICK[i % len(QUICK)] == ["/bin/true"], r.output
    assert seen == Counter({0: RUNS}), f"{backend}: exit codes {dict(seen)}"


def test_a_command_that_closes_its_pipes_then_finishes_keeps_its_code(backend: str, workspace: Path) -> None:
    # the race behind `exit=-9` with complete output, made certain: the pipes close well before the exit
    r = run(["/bin/sh", "-c", "echo done; exec >&- 2>&-; sleep 0.5; exit 3"], workspace, backend=backend)
    assert (r.exit_code, r.timed_out, r.stdout) == (3, False, "done\n"), r


def test_a_command_that_closes_its_pipes_and_hangs_is_killed_at_the_deadline(
    backend: str, workspace: Path
) -> None:
    r = run(["/bin/sh", "-c", "exec >&- 2>&-; sleep 30"], workspace, Limits(timeout=1), backend=backend)
    assert r.timed_out and r.exit_code == -9, r


@pytest.fixture
def many_open_files() -> Iterator[None]:
    """A long-lived grove (chat, a test run) may hold more fds than the sandbox's open-file cap."""
    fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(Limits().open_files + 50)]
    yield
    for fd in fds:
        os.close(fd)


def test_runs_start_when_the_parent_holds_many_files(
    backend: str, workspace: Path, many_open_files: None
) -> None:
    r = run(["/bin/echo", "ok"], workspace, backend=backend)
    assert (r.exit_code, r.stdout) == (0, "ok\n"), r
