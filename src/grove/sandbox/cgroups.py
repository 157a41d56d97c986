"""Total memory and process caps per run: one child cgroup (v2, or v1 memory + pids) under grove's own cgroup.

Nested under the cgroup grove already runs in, so every limit above it still applies. Where no cgroup is
writable (most non-root setups without systemd delegation), `unavailable_reason()` says so and runs go on
with per-process rlimits only; the Result and `grove doctor` report it.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

_counter = itertools.count()
_swept: list[bool] = []  # once per process


@dataclass(frozen=True)
class _Layout:
    version: int  # 1 or 2
    memory: Path  # the cgroup directory grove runs in, per controller (the same one for v2)
    pids: Path


def _mounts() -> dict[str, tuple[str, str]]:
    """controller ("memory", "pids", or "" for cgroup2) -> (mount point, root of the hierarchy there)."""
    found: dict[str, tuple[str, str]] = {}
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) < 5 or len(tail) < 3:
                continue
            root, point, fstype, opts = fields[3], fields[4], tail[0], tail[2].split(",")
            if fstype == "cgroup2":
                found.setdefault("", (point, root))
            elif fstype == "cgroup":
                for c in ("memory", "pids"):
                    if c in opts:
                        found.setdefault(c, (point, root))
    return found


def _own_paths() -> dict[str, str]:
    """controller -> the path of grove's cgroup in that hierarchy ("" is the v2 hierarchy)."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup", encoding="utf-8") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                paths[c] = path
    return paths


def _dir(mount: tuple[str, str], path: str) -> Path:
    point, root = mount
    rel = path[len(root) :] if root != "/" and path.startswith(root) else path
    return Path(point) / rel.lstrip("/")


@functools.cache
def _layout() -> _Layout | str:
    """Where run cgroups can be made, or why they cannot."""
    try:
        mounts, own = _mounts(), _own_paths()
    except OSError as e:
        return f"cannot read /proc cgroup information ({e})"
    if "memory" in mounts and "pids" in mounts and "memory" in own and "pids" in own:
        mem, pids = _dir(mounts["memory"], own["memory"]), _dir(mounts["pids"], own["pids"])
        if os.access(mem, os.W_OK) and os.access(pids, os.W_OK):
            return _Layout(1, mem, pids)
        return f"cgroup v1 memory/pids groups ({mem}, {pids}) are not writable by uid {os.geteuid()}"
    if "" in mounts and "" in own:
        here = _dir(mounts[""], own[""])
        try:
            enabled = (here / "cgroup.subtree_control").read_text().split()
        except OSError:
            enabled = []
        if not {"memory", "pids"} <= set(enabled):
            return f"cgroup v2 group {here} does not delegate the memory and pids controllers to children"
        if not os.access(here, os.W_OK):
            return f"cgroup v2 group {here} is not writable by uid {os.geteuid()}"
        return _Layout(2, here, here)
    return "no cgroup memory and pids controllers are mounted"


def unavailable_reason() -> str | None:
    """None when runs get total memory/process caps here, else why not (for the Result and `grove doctor`)."""
    layout = _layout()
    return layout if isinstance(layout, str) else None


class RunGroup:
    """The cgroup(s) of one run: created before the child starts, joined by it before exec, emptied and removed
    afterwards. Killing through the group reaches every process, setsid or not, whatever its uid."""

    def __init__(self, layout: _Layout, memory_bytes: int, max_pids: int | None) -> None:
        name = f"grove-{os.getpid()}-{next(_counter)}"
        self.version = layout.version
        # each v1 hierarchy joined costs the child a cgroup migration (milliseconds): pids only when needed
        wanted = [layout.memory / name] + ([layout.pids / name] if max_pids is not None else [])
        self.dirs = list(dict.fromkeys(wanted))
        for d in self.dirs:
            d.mkdir()
        try:
            if self.version == 1:
                self._write(layout.memory / name / "memory.limit_in_bytes", memory_bytes)
                if max_pids is not None:
                    self._write(layout.pids / name / "pids.max", max_pids)
            else:
                self._write(self.dirs[0] / "memory.max", memory_bytes)
                with contextlib.suppress(OSError):  # absent without swap accounting
                    self._write(self.dirs[0] / "memory.swap.max", 0)
                if max_pids is not None:
                    self._write(self.dirs[0] / "pids.max", max_pids)
        except OSError:
            self.remove()
            raise
        self.procs = [str(d / "cgroup.procs") for d in self.dirs]
        # v1: moving only the calling thread ("0" to `tasks`) skips the global threadgroup lock, whose RCU
        # grace period made every run ~10 ms slower; the child is single-threaded, so that moves all of it
        self.join_files = [str(d / "tasks") for d in self.dirs] if self.version == 1 else self.procs

    @staticmethod
    def _write(path: Path, value: int) -> None:
        path.write_text(str(value))

    def join(self) -> None:
        """Call in the forked child, before exec and before any uid drop: moves this process in."""
        pid = b"0" if self.version == 1 else str(os.getpid()).encode()
        for path in self.join_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in Path(self.procs[-1]).read_text().split()]
        except OSError:
            return []

    def memory_cap_hit(self) -> bool:
        """Did the kernel have to enforce the memory cap (OOM kill in the group)?"""
        try:
            if self.version == 1:
                text = (self.dirs[0] / "memory.oom_control").read_text()
                return any(ln.split()[1] != "0" for ln in text.splitlines() if ln.startswith("oom_kill "))
            events = (self.dirs[0] / "memory.events").read_text()
            return any(ln.split()[1] != "0" for ln in events.splitlines() if ln.startswith("oom_kill "))
        except (OSError, IndexError):
            return False

    def pids_cap_hit(self) -> bool:
        try:
            name = "pids.events"
            text = (self.dirs[-1] / name).read_text()
            return any(ln.split()[1] != "0" for ln in text.splitlines() if ln.startswith("max "))
        except (OSError, IndexError):
            return False

    def kill_all(self) -> None:
        if self.version == 2 and (self.dirs[0] / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                (self.dirs[0] / "cgroup.kill").write_text("1")
            return
        for _ in range(20):  # a fork racing the kill can add a process: repeat until the group is empty
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Kill what is left and remove the group(s); a group whose last processes are still exiting is retried."""
        self.kill_all()
        for d in self.dirs:
            for attempt in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY: SIGKILLed processes not reaped yet
                    time.sleep(0.01 * (attempt + 1))


def _sweep(layout: _Layout) -> None:
    """Remove run groups left by grove processes that died mid-run (empty once their processes are gone)."""
    for parent in {layout.memory, layout.pids}:
        for d in parent.glob("grove-*-*"):
            pid = d.name.split("-")[1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    d.rmdir()


def create(memory_mb: int, max_pids: int | None) -> RunGroup | str:
    """A run group with these caps (`max_pids` None: no process cap from the group), or the reason there is none."""
    layout = _layout()
    if isinstance(layout, str):
        return layout
    if not _swept:
        _swept.append(True)
        _sweep(layout)
    try:
        return RunGroup(layout, memory_mb * 1024 * 1024, max_pids)
    except OSError as e:
        return f"could not create a run cgroup ({e})"
