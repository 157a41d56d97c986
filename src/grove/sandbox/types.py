"""The sandbox's boundary types: the limits a run gets and the result it returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed run. Per process: rlimits. Per run: a cgroup for total memory and
    processes where one is writable (else listed in Result.unenforced), and a watcher for total disk."""

    timeout: float = 60.0  # wall-clock seconds before the whole process tree is killed
    cpu_seconds: int | None = None  # None: the timeout, rounded up
    memory_mb: int = 2048  # address space per process (RLIMIT_AS)
    max_processes: int = 128  # processes of the sandbox uid (RLIMIT_NPROC)
    file_size_mb: int = 256  # largest file a process may write (RLIMIT_FSIZE)
    open_files: int = 256
    tmp_size_mb: int = 128  # size of the private /tmp (bubblewrap only)
    output_bytes: int = 1_000_000  # per stream; the rest is counted and dropped
    uid: int | None = None  # None: chosen by the runner (see grove.sandbox.users)
    disk_mb: int = 1024  # total written into the workspace by the whole run (see grove.sandbox.diskwatch)
    total_memory_mb: int = 4096  # all processes of the run together (cgroup), page cache and tmpfs included
    total_processes: int = 256  # processes and threads of the run together (cgroup pids.max)

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {self.timeout}")
        for name in (
            "memory_mb",
            "max_processes",
            "file_size_mb",
            "open_files",
            "tmp_size_mb",
            "output_bytes",
            "disk_mb",
            "total_memory_mb",
            "total_processes",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")


@dataclass
class Result:
    """What a sandboxed run did. `exit_code` is negative when a signal killed it (-9: SIGKILL)."""

    exit_code: int | None
    stdout: str
    stderr: str
    backend: str
    timed_out: bool = False
    truncated: bool = False  # some output was dropped past Limits.output_bytes
    duration: float = 0.0
    notes: list[str] = field(default_factory=list)
    refused: bool = False  # never started: see stderr (e.g. unattended without isolation)
    unenforced: list[str] = field(default_factory=list)  # limits this machine could not apply to the run

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def output(self) -> str:
        return self.stdout + (("\n" if self.stdout and not self.stdout.endswith("\n") else "") + self.stderr)
