"""`run()`: start a command in the sandbox with kernel-enforced limits and a bounded wait that never hangs."""

from __future__ import annotations

import contextlib
import math
import os
import resource
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from grove.sandbox import caps, cgroups, landlock, lifeline, seccomp, wall
from grove.sandbox.backend import BackendInfo, resolve_backend
from grove.sandbox.bwrap import bwrap_argv
from grove.sandbox.diskwatch import POLL, DiskWatch
from grove.sandbox.gate import refusal_for_unattended
from grove.sandbox.gitenv import CONTENT as GITCONFIG
from grove.sandbox.gitenv import git_env, gitconfig_path
from grove.sandbox.mountns import STAGED_WORKSPACE, expose_workspace, stage_workspace
from grove.sandbox.types import Limits, Result
from grove.sandbox.users import (
    SANDBOX_GID,
    SANDBOX_UID,
    Identity,
    blocked_ancestor,
    can_traverse,
    can_write,
    choose_identity,
    count_processes,
    is_root,
    kill_uid,
)

# After the command exits, how long to keep reading pipes that an escaped child may still hold open.
PIPE_GRACE = 0.3
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "COOKIE", "SESSION")


def _safe_env(extra: Mapping[str, str] | None, workspace: Path, backend: str) -> dict[str, str]:
    """A minimal environment; variables whose name looks secret are refused (provider keys never go down)."""
    env = {"PATH": BASE_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "TERM": "dumb", "PWD": str(workspace)}
    env |= git_env(backend)
    for key, value in (extra or {}).items():
        if any(w in key.upper() for w in _SECRET_WORDS):
            continue
        env[key] = value
    return env


def _child_setup(
    limits: Limits,
    nproc: int,
    who: Identity | None,
    stage: str | None,
    expose: tuple[str, str] | None,
    landlock_for: str | None,
    network: bool,
    group: cgroups.RunGroup | None,
    walls: tuple[list[str], list[str]] | None = None,
    lifeline_fd: int | None = None,
) -> Callable[[], None]:
    cpu = limits.cpu_seconds or math.ceil(limits.timeout) + 1
    mem = limits.memory_mb * 1024 * 1024
    fsize = limits.file_size_mb * 1024 * 1024

    def apply() -> None:  # runs in the forked child, before exec
        if group is not None:  # first, while still root: everything this child starts is counted
            group.join()
        if stage is not None:
            stage_workspace(stage)
        if expose is not None:
            expose_workspace(*expose)
        if walls is not None:  # after the workspace is where it will be seen, before the uid drop
            wall.build(*walls)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        fds = (
            landlock.open_paths(landlock_for, (gitconfig_path(),)) if landlock_for is not None else []
        )  # while we can reach them
        if who is not None and who.uid == 0:  # a root-owned workspace's owner (see users.choose_identity)
            os.setgroups([])
            if landlock_for is not None:  # bwrap drops capabilities itself, in its user namespace
                caps.drop_all()
        elif who is not None:  # after what needed root
            os.setgroups([])
            os.setresgid(who.gid, who.gid, who.gid)
            os.setresuid(who.uid, who.uid, who.uid)
            os.umask(0o002)  # files stay writable by the next run's uid, which shares the group
        if lifeline_fd is not None:  # same uid as the run, outside its Landlock domain: it may signal it
            lifeline.start_watcher(lifeline_fd)
        if landlock_for is not None:  # seccomp forbids what the steps before may need
            landlock.restrict(fds, network)
            seccomp.install(network)
        # last: until exec the child still holds every fd of its parent (close_fds runs after this function), so
        # in a process with many open files a lower cap made Landlock's own fds fail with EMFILE
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))

    return apply


def _inside(ws: Path, home: Path | None) -> str | None:
    """`home` relative to the workspace when it lies inside it (or is it: "."), else None."""
    if home is None:
        return None
    try:
        return Path(os.path.realpath(home)).relative_to(ws).as_posix()
    except ValueError:
        return None


def make_scratch(parent: Path | str | None = None, prefix: str = "grove-sbx-") -> Path:
    """A fresh private directory the sandbox may write (as root: owned by the sandbox group, setgid, so every
    run's uid can write what earlier runs left there)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    if is_root():
        os.chown(path, SANDBOX_UID, SANDBOX_GID)
        os.chmod(path, 0o2770)
    return path


def run(
    argv: Sequence[str],
    workspace: Path | str,
    limits: Limits | None = None,
    network: bool = False,
    *,
    env: Mapping[str, str] | None = None,
    merge_stderr: bool = False,
    backend: str | None = None,
    unattended: bool = False,
    allow_unisolated: bool = False,
    protect_home: Path | None = None,
    read_only: Sequence[str] = (),
) -> Result:
    """Run `argv` in `workspace` (the only writable place) under the best available isolation.

    `unattended`: nobody can approve or watch this run; without isolation it is then refused (Result.refused)
    unless `allow_unisolated` says the user accepted that risk.
    `protect_home`: grove's home; when it lies inside the workspace the command can neither read nor write it
    (refused where no backend can hide it). `read_only`: workspace-relative paths that persist beyond the
    workspace (the caller's grove.security.files.protected.existing_protected), bound read-only where a backend can.
    Never raises for what the command does (non-zero exit, timeout, limits hit): all of that is in the Result.
    """
    if isinstance(argv, str) or not argv or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a non-empty list of strings, e.g. ['python3', '-c', 'print(1)']")
    limits = limits or Limits()
    ws = Path(workspace).resolve()
    if not ws.is_dir():
        raise ValueError(f"workspace {ws} is not a directory; create it first")
    info = resolve_backend(backend)
    refusal = refusal_for_unattended(info, allow_unisolated) if unattended else None
    if refusal:
        out, err = (refusal, "") if merge_stderr else ("", refusal)
        return Result(126, out, err, info.name, notes=["refused: no isolation"], refused=True)
    who = choose_identity(ws, info.name, limits.uid)
    notes: list[str] = []
    home_rel = _inside(ws, protect_home)
    ro = tuple(
        r for r in read_only if os.path.lexists(ws / r) and not os.path.islink(ws / r) and r != home_rel
    )
    hide = (home_rel,) if home_rel is not None else ()
    can_wall = info.name == "bwrap" or is_root() or wall.userns_available()
    if home_rel is not None and (home_rel == "." or not can_wall):
        why = (
            "is the workspace itself" if home_rel == "." else
            "lies inside the workspace and this machine can hide it from commands only with bubblewrap, root, "
            "or unprivileged user namespaces (none available)"
        )  # fmt: skip
        msg = (
            f"grove: refused to run the command: grove's home {protect_home} {why}, so a command could read "
            "its keys or rewrite its config. To fix: run grove from a project folder (not your home), set "
            "GROVE_HOME to a folder outside the workspace, or install bubblewrap"
        )
        out, err = (msg, "") if merge_stderr else ("", msg)
        return Result(
            126, out, err, info.name, notes=["refused: grove's home inside the workspace"], refused=True
        )
    if ro and not can_wall:
        notes.append("protected paths (.git/config, hooks...) are not read-only here: no mount namespace")
    walls = None
    if info.name != "bwrap" and can_wall and (hide or ro):
        walls = ([str(ws / r) for r in hide], [str(ws / r) for r in ro])
    if not info.isolated:
        notes.append("no isolation: only resource limits apply (install bubblewrap)")
    if not can_write(ws, who):
        notes.append(
            f"the workspace is read-only for the sandbox (uid {who.uid if who else os.getuid()}); "
            f"to let commands write there: chgrp -R {SANDBOX_GID} {ws} && chmod -R g+rwX {ws}, "
            "or run grove as a normal user"
        )
    # RLIMIT_NPROC counts every task of the uid, zombies too: a uid other runs may hold (grove's own, or the
    # workspace owner's under bwrap) gets max_processes more than it has now, or a host whose init reaps
    # orphans slowly makes quick runs fail with EAGAIN once the uid's leftovers reach the cap.
    shared_uid = os.getuid() if who is None else None if who.per_run else who.uid
    nproc = limits.max_processes + (count_processes(shared_uid) if shared_uid is not None else 0)
    per_run_uid = who is not None and who.per_run
    if per_run_uid:  # RLIMIT_NPROC counts every task of this uid, and only this run has it: a total cap
        nproc = min(nproc, limits.total_processes)
    run_env = _safe_env(env, ws, info.name)
    stage = info.name == "bwrap" and who is not None and not can_traverse(ws, who)
    blocked = blocked_ancestor(ws, who) if info.name != "bwrap" and who is not None else None
    expose = (str(ws), str(blocked)) if blocked is not None else None
    bwrap_fds: list[int] = []
    if info.name == "bwrap":
        bwrap_fds.append(_memfd("grove-gitconfig", GITCONFIG.encode()))
        if seccomp.supported():
            bwrap_fds.append(_memfd("grove-seccomp", seccomp.build_unix_only()))
    if info.name == "bwrap":
        assert info.bwrap
        source = Path(STAGED_WORKSPACE) if stage else ws
        cmd = bwrap_argv(
            info.bwrap,
            list(argv),
            workspace=ws,
            source=source,
            limits=limits,
            network=network,
            env=run_env,
            seccomp_fd=bwrap_fds[1] if len(bwrap_fds) > 1 else None,
            gitconfig_fd=bwrap_fds[0],
            hide=hide,
            read_only=ro,
        )
        popen_env: dict[str, str] = {}  # bwrap's own environ is readable inside at /proc/1/environ
        cwd = "/"
    else:
        if network and info.name == "rlimit":
            notes.append("network=True has no effect without isolation: the host network is reachable")
        if info.name == "landlock":  # no private /tmp here: temp files and dotfiles go to the workspace
            run_env |= {"HOME": str(ws), "TMPDIR": str(ws)}
        cmd, popen_env, cwd = list(argv), run_env, str(ws)
    group = cgroups.create(limits.total_memory_mb, None if per_run_uid else limits.total_processes)
    unenforced: list[str] = []
    if isinstance(group, str):
        unenforced.append(f"total memory and process caps ({group}); per-process rlimits only")
        group = None
    watch = DiskWatch(ws, limits.disk_mb * 1024 * 1024)
    start = time.monotonic()
    try:
        return _supervise(cmd, cwd, popen_env, bwrap_fds, merge_stderr, limits, nproc, who, stage, expose, ws, info,
                          network, group, watch, notes, unenforced, argv, start, walls)  # fmt: skip
    finally:
        for fd in bwrap_fds:
            os.close(fd)
        if group is not None:
            group.remove()


def _supervise(
    cmd: list[str],
    cwd: str,
    popen_env: dict[str, str],
    bwrap_fds: list[int],
    merge_stderr: bool,
    limits: Limits,
    nproc: int,
    who: Identity | None,
    stage: bool,
    expose: tuple[str, str] | None,
    ws: Path,
    info: BackendInfo,
    network: bool,
    group: cgroups.RunGroup | None,
    watch: DiskWatch,
    notes: list[str],
    unenforced: list[str],
    argv: Sequence[str],
    start: float,
    walls: tuple[list[str], list[str]] | None = None,
) -> Result:
    line = (
        lifeline.open_lifeline() if info.name != "bwrap" else None
    )  # bwrap: --die-with-parent, pid namespace
    try:
        return _supervise_with(cmd, cwd, popen_env, bwrap_fds, merge_stderr, limits, nproc, who, stage, expose, ws,
                               info, network, group, watch, notes, unenforced, argv, start, walls, line)  # fmt: skip
    finally:
        for fd in line or ():
            os.close(fd)  # the watcher sees EOF and kills what the run left behind


def _supervise_with(
    cmd: list[str],
    cwd: str,
    popen_env: dict[str, str],
    bwrap_fds: list[int],
    merge_stderr: bool,
    limits: Limits,
    nproc: int,
    who: Identity | None,
    stage: bool,
    expose: tuple[str, str] | None,
    ws: Path,
    info: BackendInfo,
    network: bool,
    group: cgroups.RunGroup | None,
    watch: DiskWatch,
    notes: list[str],
    unenforced: list[str],
    argv: Sequence[str],
    start: float,
    walls: tuple[list[str], list[str]] | None,
    line: tuple[int, int] | None,
) -> Result:
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=popen_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            start_new_session=True,
            pass_fds=bwrap_fds,
            preexec_fn=_child_setup(
                limits,
                nproc,
                who,
                str(ws) if stage else None,
                expose,
                str(ws) if info.name == "landlock" else None,
                network,
                group,
                walls,
                line[0] if line else None,
            ),
        )
    except (OSError, subprocess.SubprocessError) as e:  # SubprocessError: the child setup failed
        why = f"could not start {argv[0]}: {e}"
        out, err = (why, "") if merge_stderr else ("", why)  # merged: the caller reads stdout only
        return Result(127, out, err, info.name, duration=0.0, notes=notes)
    deadline = time.monotonic() + limits.timeout
    out, err, timed_out, truncated, disk_over = _collect(proc, limits, watch, deadline)
    if not (timed_out or disk_over):  # pipes closed before the exit: wait for it while the deadline allows
        timed_out, disk_over = _await_exit(proc, watch, deadline)
    if proc.poll() is None:
        _kill_tree(proc, info, who)
    if group is not None:
        group.kill_all()  # what left the session or changed uid: the group holds every process of the run
    try:
        code: int | None = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        code = None
    if info.name != "bwrap" and who is not None and who.per_run:
        kill_uid(who.uid)  # stragglers that left the process group; bwrap's pid namespace already took them
    if timed_out:
        notes.append(f"killed after {limits.timeout:g}s")
    if disk_over or watch.over():
        notes.append(
            f"{'killed: ' if disk_over else ''}wrote {watch.written / 2**20:.0f} MB into the workspace, over the "
            f"{limits.disk_mb} MB total disk cap"
        )
    if group is not None and group.memory_cap_hit():
        notes.append(f"the {limits.total_memory_mb} MB total memory cap was hit: the kernel killed a process")
    if group is not None and group.pids_cap_hit():
        notes.append(f"the {limits.total_processes}-process cap was hit: some fork() calls failed")
    return Result(
        code,
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
        info.name,
        timed_out=timed_out,
        truncated=truncated,
        duration=time.monotonic() - start,
        notes=notes,
        unenforced=unenforced,
    )


def _memfd(name: str, data: bytes) -> int:
    """An fd holding `data` for bubblewrap to read (`--seccomp FD`, `--file FD`); we close it after the run."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _await_exit(proc: subprocess.Popen[bytes], watch: DiskWatch, deadline: float) -> tuple[bool, bool]:
    """Wait for a run whose pipes are closed: it is finishing (or closed them on purpose and works on), and only
    the deadline or the disk cap may stop it. A fixed grace here lost races on busy machines and reported
    successful commands as killed (-9). Returns (timed_out, disk_over)."""
    while True:
        now = time.monotonic()
        if now >= deadline:
            return proc.poll() is None, False
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=min(POLL, deadline - now))
            return False, False
        if watch.over():
            return False, proc.poll() is None


def _collect(
    proc: subprocess.Popen[bytes], limits: Limits, watch: DiskWatch, deadline: float
) -> tuple[bytes, bytes, bool, bool, bool]:
    """Read both pipes until EOF, the deadline, the disk cap, or shortly after exit (pipes held by escapees are
    let go)."""
    bufs: dict[int, bytearray] = {}
    sel = selectors.DefaultSelector()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ)
            bufs[stream.fileno()] = bytearray()
    truncated = timed_out = disk_over = False
    exited_at: float | None = None
    try:
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > PIPE_GRACE:
                break
            if now >= deadline:
                timed_out = exited_at is None
                break
            if exited_at is None and watch.over():
                disk_over = True
                break
            for key, _ in sel.select(timeout=min(POLL, deadline - now)):
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                buf = bufs[key.fd]
                room = limits.output_bytes - len(buf)
                if len(chunk) > room:
                    truncated = True
                buf += chunk[: max(room, 0)]
    finally:
        sel.close()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    fds = list(bufs)
    out = bytes(bufs[fds[0]])
    err = bytes(bufs[fds[1]]) if len(fds) > 1 else b""
    return out, err, timed_out, truncated, disk_over


def _kill_tree(proc: subprocess.Popen[bytes], info: BackendInfo, who: Identity | None) -> None:
    if info.name == "bwrap":
        proc.kill()  # bwrap's pid namespace dies with it, setsid children included
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.kill()
    if who is not None and who.per_run:
        kill_uid(who.uid)
