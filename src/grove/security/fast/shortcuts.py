"""The one off switch for the scan's speed shortcuts (RE2 gate, exact gates, per-process memos).

Every shortcut asks `on()`; with GROVE_SCAN_SHORTCUTS=0 (or inside `off()`) each takes its plain path, same verdicts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

_ENV = "GROVE_SCAN_SHORTCUTS"


def _from_env() -> bool:
    value = os.environ.get(_ENV, "1").strip().lower()
    if value in ("1", "on", "true", "yes", ""):
        return True
    if value in ("0", "off", "false", "no"):
        return False
    raise ValueError(
        f"{_ENV}={value!r}: use 1 (speed shortcuts on, the default) or 0 (off: every pattern in re)"
    )


# Read once: the shortcuts sit on hot paths (a token memo is asked millions of times per collection).
_on = [_from_env()]


def on() -> bool:
    """True when the scan may take its speed shortcuts."""
    return _on[0]


@contextmanager
def off() -> Iterator[None]:
    """The scan without any shortcut inside the block (for checking that each one changes no verdict)."""
    before = _on[0]
    _on[0] = False
    try:
        yield
    finally:
        _on[0] = before
