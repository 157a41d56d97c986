"""Bounded waits the fakes share: for something to happen under a condition variable, and for a server's port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    cond: threading.Condition, ready: Callable[[], T], failure: Callable[[], str], timeout: float = 15.0
) -> T:
    """Waits on `cond` (taken here; notify it on every change) until `ready()` is truthy and returns it; fails
    (AssertionError, with `failure()`: what did happen) when it does not come in time."""
    deadline = time.monotonic() + timeout
    with cond:
        while not (found := ready()):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(failure())
            cond.wait(left)
        return found


def wait_for_port(port: int, what: str, timeout: float = 10.0) -> None:
    """Returns once 127.0.0.1:`port` takes connections; RuntimeError naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"{what} did not start")
