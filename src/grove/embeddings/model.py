"""The embedding model: WordLlama's l2_supercat at 256 dimensions, whose weights ship inside its PyPI wheel (MIT).
(Cut to 128 of them, as it is trained to allow, it was 3x faster at 100K messages but found 0.47 of the paraphrases
of benchmarks/session_search.py instead of 0.55.)

Loaded from the installed package's own files only (never a download); absent without the `[embeddings]` extra,
and nothing here is imported until a search asks for it.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "wordllama-l2_supercat-256"
DIM = 256
# a message is embedded by its first 2,000 characters: a mean of token vectors blurs past that
MAX_CHARS = 2000
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"

_lock = threading.Lock()
_loaded: Embedder | None = None
_failed = False


class Embedder:
    """Texts to unit vectors (float32, DIM wide): a cosine is a dot product."""

    name = MODEL_NAME

    def __init__(self, package_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        from wordllama.inference import WordLlamaInference

        # wordllama calls logging.basicConfig() on import: grove's own logging setup must stay as it was
        for h in root.handlers[:]:
            if h not in handlers:
                root.removeHandler(h)
        root.setLevel(level)
        weights = load_file(str(package_dir / _WEIGHTS))["embedding.weight"]
        self._model = WordLlamaInference(weights, Tokenizer.from_file(str(package_dir / _TOKENIZER)))

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        vectors = self._model.embed([t[:MAX_CHARS] for t in texts], norm=True)
        return np.nan_to_num(np.asarray(vectors, dtype=np.float32))  # an all-unknown text has a zero norm


def package_dir() -> Path | None:
    """The installed wordllama package holding the weights, or None without the `[embeddings]` extra."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    return root if (root / _WEIGHTS).is_file() and (root / _TOKENIZER).is_file() else None


def available() -> bool:
    return package_dir() is not None


def load_embedder() -> Embedder | None:
    """The process's one embedder (loaded once, ~0.6 s), or None when the extra is not installed or its model
    does not load (a broken install: search goes on by words, and the reason is logged once)."""
    global _loaded, _failed
    with _lock:
        if _loaded is None and not _failed:
            where = package_dir()
            if where is None:
                return None
            try:
                _loaded = Embedder(where)
            except Exception as e:  # safetensors, tokenizers and wordllama each raise their own kinds
                _failed = True
                logging.getLogger(__name__).warning(
                    "meaning search is off: the embedding model failed: %s", e
                )
        return _loaded
