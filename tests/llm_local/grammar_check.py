"""Whether llama.cpp's grammar sampler lets a model write a given text: the text's tokens are offered one at a
time and must keep a finite logit, and at the end the grammar must let the turn end (tests only)."""

from __future__ import annotations

import math
from typing import Any


def vocab_model() -> Any:
    """SmolLM2's vocabulary only (no weights): enough to run a grammar over real tokens, in milliseconds."""
    from llama_cpp import Llama
    from tests.llm_local.default_model import default_model_file

    return Llama(model_path=str(default_model_file()), vocab_only=True, verbose=False)


def grammar_allows(llm: Any, grammar: str, text: str) -> bool:
    import llama_cpp

    vocab = llm._model.vocab
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    assert sampler, "llama.cpp rejected the grammar"
    try:
        for token in [*llm.tokenize(text.encode(), add_bos=False, special=False), llm.token_eos()]:
            data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
            candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
            llama_cpp.llama_sampler_apply(sampler, ctypes_pointer(candidates))
            if math.isinf(data[0].logit):
                return False
            if token != llm.token_eos():
                llama_cpp.llama_sampler_accept(sampler, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)


def ctypes_pointer(obj: Any) -> Any:
    import ctypes

    return ctypes.pointer(obj)
