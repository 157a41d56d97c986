"""Running untrusted commands and code: one `run()` for every caller, the best isolation the machine offers.

Backends, best first: bubblewrap as an unprivileged uid, Landlock + seccomp, rlimits + uid drop only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grove.sandbox.backend import detect_backend, doctor_check
    from grove.sandbox.gate import refusal_for_unattended
    from grove.sandbox.runner import make_scratch, run
    from grove.sandbox.types import Limits, Result

# Where each name lives: loaded on first use, so importing the types (every backend and tool does) does not load
# the runner and its bwrap, Landlock, seccomp and cgroup modules (a run that starts no command never needs them).
_HOME = {
    "Limits": "types",
    "Result": "types",
    "detect_backend": "backend",
    "doctor_check": "backend",
    "refusal_for_unattended": "gate",
    "make_scratch": "runner",
    "run": "runner",
}
__all__ = [
    "Limits",
    "Result",
    "detect_backend",
    "doctor_check",
    "make_scratch",
    "refusal_for_unattended",
    "run",
]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value
