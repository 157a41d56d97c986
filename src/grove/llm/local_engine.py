"""What grove.llm.local needs of an embedded runtime, whichever library it is: tokens, a chat template,
grammar-held sampling, the KV cache (`Engine`), and what a generation gives back. The runtimes import this; the
choice between them (grove.llm.local_runtime) imports them, so neither imports the other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from grove.llm.local_template import ChatTemplate

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


def common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens two sequences share (what a KV cache holding `a` can reuse for `b`)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
