"""A seccomp filter for the Landlock backend (x86_64): no inet/inet6/netlink/packet sockets (Landlock does not
cover UDP or DNS), no AF_UNIX sockets (Landlock ABI <= 7 does not govern connecting to a pathname socket, so
docker.sock or an ssh-agent would be reachable; socketpair() stays allowed), no setsid/setpgid (so one process-group kill reaches everything), no setuid/setgid chmod, no ptrace, mount, namespaces,
bpf, keyrings, io_uring or module loading. Everything else is allowed."""

from __future__ import annotations

import ctypes
import errno
import os
import struct

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
# x86_64 syscall numbers
_DENY = {
    "ptrace": 101, "setpgid": 109, "setsid": 112, "pivot_root": 155, "chroot": 161, "mount": 165, "umount2": 166,
    "swapon": 167, "swapoff": 168, "reboot": 169, "init_module": 175, "delete_module": 176, "kexec_load": 246,
    "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272, "perf_event_open": 298,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "setns": 308, "process_vm_readv": 310,
    "process_vm_writev": 311, "finit_module": 313, "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
}  # fmt: skip
_SOCKET, _CLONE, _CLONE3 = 41, 56, 435
# chmod(path, mode), fchmod(fd, mode), fchmodat(dirfd, path, mode): the mode's argument index
_CHMODS = {90: 1, 91: 1, 268: 2}
_S_ISUID_ISGID = 0o6000
_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK, _AF_PACKET = 1, 2, 10, 16, 17
_CLONE_NAMESPACES = 0x7E020000  # NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
_RET_ALLOW, _RET_ERRNO, _RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000
_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2

_libc = ctypes.CDLL(None, use_errno=True)


def supported() -> bool:
    return os.uname().machine == "x86_64"


def _stmt(code: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, 0, 0, k)


def _jump(code: int, k: int, jt: int, jf: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def build(network: bool) -> bytes:
    """The BPF program. Offsets: nr at 0, arch at 4, args[i] (low 32 bits) at 16 + 8*i."""
    prog = [_stmt(_LD_W_ABS, 4), _jump(_JEQ_K, _AUDIT_ARCH_X86_64, 1, 0), _stmt(_RET_K, _RET_KILL)]
    prog += [_stmt(_LD_W_ABS, 0), _jump(_JSET_K, _X32_BIT, 0, 1), _stmt(_RET_K, _RET_ERRNO | errno.EPERM)]
    for nr in _DENY.values():
        prog += [_jump(_JEQ_K, nr, 0, 1), _stmt(_RET_K, _RET_ERRNO | errno.EPERM)]
    # clone3 passes flags in memory BPF cannot read: ENOSYS makes libc fall back to clone, which we can check
    prog += [_jump(_JEQ_K, _CLONE3, 0, 1), _stmt(_RET_K, _RET_ERRNO | errno.ENOSYS)]
    prog += [_jump(_JEQ_K, _CLONE, 0, 3), _stmt(_LD_W_ABS, 16), _jump(_JSET_K, _CLONE_NAMESPACES, 0, 1)]
    prog += [_stmt(_RET_K, _RET_ERRNO | errno.EPERM), _stmt(_LD_W_ABS, 0)]
    families = (_AF_UNIX,) if network else (_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK, _AF_PACKET)
    prog += _deny_setid_chmod()
    prog += _deny_families(families)
    prog.append(_stmt(_RET_K, _RET_ALLOW))
    return b"".join(prog)


def _deny_families(families: tuple[int, ...]) -> list[bytes]:
    """socket(family, ...) fails with EACCES for these families; expects the syscall number loaded."""
    prog = [_jump(_JEQ_K, _SOCKET, 0, 1 + 2 * len(families)), _stmt(_LD_W_ABS, 16)]
    for family in families:
        prog += [_jump(_JEQ_K, family, 0, 1), _stmt(_RET_K, _RET_ERRNO | errno.EACCES)]
    return prog


def build_unix_only() -> bytes:
    """For bubblewrap (`--seccomp FD`): no AF_UNIX sockets. A socket bound into the sandbox's view, or an
    abstract one of the host when the network is shared, stays out of reach; socketpair() still works."""
    prog = [_stmt(_LD_W_ABS, 4), _jump(_JEQ_K, _AUDIT_ARCH_X86_64, 1, 0), _stmt(_RET_K, _RET_KILL)]
    prog += [_stmt(_LD_W_ABS, 0), _jump(_JSET_K, _X32_BIT, 0, 1), _stmt(_RET_K, _RET_ERRNO | errno.EPERM)]
    prog += _deny_setid_chmod()
    prog += _deny_families((_AF_UNIX,))
    prog.append(_stmt(_RET_K, _RET_ALLOW))
    return b"".join(prog)


def _deny_setid_chmod() -> list[bytes]:
    """chmod/fchmod/fchmodat setting S_ISUID or S_ISGID fail with EPERM: no setuid/setgid program is left in
    the workspace for someone outside to run. Expects the syscall number loaded, and leaves it loaded."""
    prog: list[bytes] = []
    for nr, arg in _CHMODS.items():
        prog += [_jump(_JEQ_K, nr, 0, 4), _stmt(_LD_W_ABS, 16 + 8 * arg)]
        prog += [_jump(_JSET_K, _S_ISUID_ISGID, 0, 1), _stmt(_RET_K, _RET_ERRNO | errno.EPERM)]
        prog += [_stmt(_LD_W_ABS, 0)]
    return prog


def install(network: bool) -> None:
    """Load the filter into this process (inherited across fork and exec). Needs no_new_privs."""
    code = build(network)
    n = len(code) // 8
    filt = ctypes.create_string_buffer(code, len(code))
    fprog = struct.pack("=HxxxxxxQ", n, ctypes.addressof(filt))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fbuf, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")
