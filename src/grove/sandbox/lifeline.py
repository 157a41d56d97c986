"""Children die with grove: a watcher in the run's process group holds a pipe only grove can write; when grove
exits (even by SIGKILL) the pipe reaches EOF and the watcher kills the whole group (Landlock and rlimit backends,
where no pid namespace ends the tree; seccomp forbids leaving the group)."""

from __future__ import annotations

import os
import signal


def open_lifeline() -> tuple[int, int]:
    """(read end for the child, write end grove keeps until the run is over); both close-on-exec."""
    return os.pipe2(os.O_CLOEXEC)


def start_watcher(read_fd: int) -> None:
    """Call in the forked child after the uid drop and before Landlock/seccomp: forks the watcher, which keeps
    only `read_fd`, waits for EOF, then SIGKILLs its process group (the run) and itself."""
    if os.fork() != 0:
        os.close(read_fd)
        return
    try:  # the watcher: nothing of the run's pipes or grove's fds stays open here
        os.closerange(0, read_fd)
        os.closerange(read_fd + 1, 65536)
        while True:
            try:
                if not os.read(read_fd, 1):
                    break
            except InterruptedError:
                continue
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(0)
