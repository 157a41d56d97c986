"""Landlock probing for the fallback backend (the file allow-list is applied in the child, before exec)."""

from __future__ import annotations

import ctypes
import os

_SYS_LANDLOCK_CREATE_RULESET = 444  # same number on x86_64 and aarch64
_LANDLOCK_CREATE_RULESET_VERSION = 1


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 when absent."""
    if os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, 0, _LANDLOCK_CREATE_RULESET_VERSION)
    return max(abi, 0)
