"""Running untrusted commands and code: one `run()` for every caller, the best isolation the machine offers.

Backends, best first: bubblewrap as an unprivileged uid, Landlock + seccomp, rlimits + uid drop only.
"""

from __future__ import annotations

from grove.sandbox.backend import detect_backend, doctor_check
from grove.sandbox.gate import refusal_for_unattended
from grove.sandbox.runner import make_scratch, run
from grove.sandbox.types import Limits, Result

__all__ = [
    "Limits",
    "Result",
    "detect_backend",
    "doctor_check",
    "make_scratch",
    "refusal_for_unattended",
    "run",
]
