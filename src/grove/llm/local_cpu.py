"""llama.cpp's extra CPU buffer types (AMX tiles, weight repacking) are turned off on CPUs that advertise AMX:
on this kind of VM llama-cpp-python's AMX matmul crashes the process (SIGSEGV at `ldtilecfg`) on the first
multi-token decode. Everything else about the model stays as llama.cpp chooses."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

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
    low = llama_module.llama_cpp
    original = low.llama_model_default_params

    def without_extra_buffers():  # type: ignore[no-untyped-def]
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
