"""Worker processes on this host: a pid with its start time (so a reused pid is not mistaken for the worker)."""

from __future__ import annotations

from pathlib import Path


def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux /proc), None where it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[19]  # field 22 of stat: starttime (fields counted after the command name start at 3)


def alive(pid: int, start: str | None) -> bool:
    """The worker process is still running (a zombie counts as gone); False when the pid was reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    rest = stat[stat.rindex(")") + 2 :].split()
    if rest[0] in ("Z", "X"):
        return False
    return start is None or rest[19] == start
