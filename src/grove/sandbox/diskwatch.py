"""A cap on the total disk one run writes into its workspace, checked while it runs (works as root or not).

Every poll costs one statvfs of the workspace's filesystem. Only when that filesystem has lost more than the
cap since the start does a walk count what the run itself wrote (files of the workspace modified since the
start, directories included, plus files of the workspace deleted while still held open, found through /proc),
so other writers on the same disk never get a run killed. Polling means a fast writer can overshoot by
what it writes between two polls (tens of MB at ~1 GB/s); the per-file RLIMIT_FSIZE still bounds each file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

POLL = 0.02  # seconds between two statvfs checks
_MTIME_SLACK_NS = 1_000_000_000  # file times use the kernel's coarse clock: count a little before the start


class DiskWatch:
    def __init__(self, workspace: Path, cap_bytes: int) -> None:
        self.workspace = workspace
        self.cap = cap_bytes
        self.start_ns = time.time_ns() - _MTIME_SLACK_NS
        self.used_start = self._fs_used()
        self.next_walk_at = cap_bytes  # filesystem growth that triggers the next walk
        self.written = 0  # what the last walk counted

    def _fs_used(self) -> int:
        st = os.statvfs(self.workspace)
        return (st.f_blocks - st.f_bfree) * st.f_frsize

    def over(self) -> bool:
        """True once the run has written more than the cap into the workspace."""
        grown = self._fs_used() - self.used_start
        if grown <= self.next_walk_at:
            return False
        self.written = self.measure()
        if self.written > self.cap:
            return True
        self.next_walk_at = grown + max(self.cap // 4, 1 << 20)  # someone else writes: walk again later
        return False

    def measure(self) -> int:
        """Bytes on disk of workspace files and directories created or changed since the run started, and of
        workspace files deleted but still open (their blocks stay used until the last close)."""
        total = self._deleted_open()
        stack = [str(self.workspace)]
        while stack:
            try:
                entries = os.scandir(stack.pop())
            except OSError:
                continue
            with entries:
                for entry in entries:
                    try:
                        st = entry.stat(follow_symlinks=False)
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)  # and its own blocks count: many dirs cost real disk
                    except OSError:
                        continue
                    if st.st_mtime_ns >= self.start_ns or st.st_ctime_ns >= self.start_ns:
                        total += st.st_blocks * 512
        return total

    def _deleted_open(self) -> int:
        """Blocks of unlinked files under the workspace that some process still holds open."""
        prefix = str(self.workspace).rstrip("/") + "/"
        seen: set[tuple[int, int]] = set()
        total = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            fd_dir = f"/proc/{pid}/fd"
            try:
                fds = os.listdir(fd_dir)
            except OSError:
                continue  # gone, or not ours to read
            for fd in fds:
                try:
                    target = os.readlink(f"{fd_dir}/{fd}")
                    if not (target.startswith(prefix) and target.endswith(" (deleted)")):
                        continue
                    st = os.stat(f"{fd_dir}/{fd}")
                except OSError:
                    continue
                if st.st_nlink == 0 and (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_blocks * 512
        return total
