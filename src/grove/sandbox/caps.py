"""Root without root's powers: every capability dropped for good (bounding set, ambient, effective, permitted,
inheritable) and root's exec rule turned off, so uid 0 keeps only an owner's rights over root's files."""

from __future__ import annotations

import ctypes
import os

_PR_CAPBSET_DROP, _PR_SET_SECUREBITS, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 28, 47, 4
# NOROOT (uid 0 gains nothing on exec), NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE: each locked
_SECUREBITS = 0b11 | 0b1100 | 0b100000 | 0b11000000
_CAPSET, _CAP_V3 = {"x86_64": 126, "aarch64": 91}, 0x20080522
_libc = ctypes.CDLL(None, use_errno=True)


def _check(ok: bool, what: str) -> None:
    if not ok:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def drop_all() -> None:
    """Called as root in the forked child, before exec; raises OSError when the kernel refuses a step."""
    _check(_libc.prctl(_PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0) == 0, "PR_SET_SECUREBITS")
    for cap in range(64):  # past the kernel's last capability the call fails with EINVAL: the end
        if _libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_V3, 0)
    data = (ctypes.c_uint32 * 6)()  # two (effective, permitted, inheritable) words, all zero
    number = _CAPSET.get(os.uname().machine)
    _check(number is not None, "capset: unknown machine")
    # (number is an int here: _check raised above when it was None)
    _check(_libc.syscall(ctypes.c_long(number), header, data) == 0, "capset")  # pyright: ignore[reportArgumentType]
