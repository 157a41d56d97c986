"""Offline cl100k_base token counts for benchmarks: tiktoken, fed the encoding file that bpe-openai ships.

tiktoken looks for `$TIKTOKEN_CACHE_DIR/<sha1 of the encoding's URL>`; we put the gunzipped copy there, so no
benchmark ever reaches the network.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import tempfile
from importlib import resources
from pathlib import Path

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    path = Path(configured) if configured else Path(tempfile.gettempdir()) / "grove-tiktoken"
    path.mkdir(parents=True, exist_ok=True)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def ensure_cl100k_cached() -> Path:
    """Place cl100k_base where tiktoken looks for it; returns the file's path."""
    target = _cache_dir() / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    if not target.is_file():
        try:
            packed = resources.files("bpe_openai").joinpath("data/cl100k_base.tiktoken.gz").read_bytes()
        except (ModuleNotFoundError, FileNotFoundError) as e:
            raise SystemExit(
                "token counts need the PyPI packages tiktoken and bpe-openai: pip install -e '.[dev]'"
            ) from e
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(gzip.decompress(packed))
        os.replace(tmp, target)
    return target


@functools.cache
def _encoding():
    ensure_cl100k_cached()
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    """Tokens of `text` in cl100k_base (special-token text counted as plain text)."""
    return len(_encoding().encode(text, disallowed_special=()))


if __name__ == "__main__":
    import sys

    print(count_tokens(sys.stdin.read()))
