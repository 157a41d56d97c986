"""The real embedded model (SmolLM2-135M via llama.cpp, on whichever runtime grove.llm.local_runtime picks):
answers, forced tool calls, KV-cache reuse, the prompt's KV on disk, overflow, refused grammars."""

from __future__ import annotations

import json

import pytest
from tests.llm_local.default_model import SKIP_REASON, default_model_file, link_into

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_runtime import runtime_installed
from grove.llm.types import ModelSettings

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not runtime_installed(), reason="needs xllamacpp (or llama-cpp-python): [local]"),
    pytest.mark.skipif(default_model_file() is None, reason=SKIP_REASON),
]

SYSTEM = {"role": "system", "content": "You are grove, a helpful assistant."}
READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file and return its contents.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path"],
        },
    },
}
SHORT = ModelSettings(max_tokens=16)


@pytest.fixture(scope="module")
def model():  # type: ignore[no-untyped-def]
    from grove.llm.local import LocalModel

    return LocalModel(path=default_model_file())


def test_answers_a_question_with_text_and_streams_it(model) -> None:  # type: ignore[no-untyped-def]
    chunks: list[str] = []
    question = [SYSTEM, {"role": "user", "content": "What is the capital of France?"}]
    reply = model.complete(question, [], SHORT, on_text=chunks.append)
    assert reply.text.strip()
    assert not reply.tool_calls
    assert "".join(chunks).strip() == reply.text
    assert reply.usage.prompt_tokens > 10
    assert 0 < reply.usage.completion_tokens <= 16


def test_greedy_by_default_so_replies_repeat(model) -> None:  # type: ignore[no-untyped-def]
    question = [SYSTEM, {"role": "user", "content": "Name a colour."}]
    first = model.complete(question, [], ModelSettings(max_tokens=8))
    model.complete([SYSTEM, {"role": "user", "content": "Something else."}], [], ModelSettings(max_tokens=4))
    assert model.complete(question, [], ModelSettings(max_tokens=8)).text == first.text


def test_forced_tool_call_parses_and_matches_the_schema(model) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local import LocalModel

    forced = LocalModel(path=default_model_file(), tool_choice="required")
    assert forced._loaded() is model._loaded()  # same file and context: the model is loaded once per process
    chunks: list[str] = []
    ask = [SYSTEM, {"role": "user", "content": "Read the file notes.txt"}]
    reply = forced.complete(ask, [READ_FILE], ModelSettings(max_tokens=48), on_text=chunks.append)
    assert reply.finish_reason == "tool_calls"
    assert len(reply.tool_calls) == 1
    call = reply.tool_calls[0]
    assert call.name == "read_file" and call.id == "call_0"
    args = json.loads(call.arguments)
    assert isinstance(args, dict) and isinstance(args["path"], str)
    assert set(args) <= {"path", "limit"}
    assert "limit" not in args or isinstance(args["limit"], int)
    assert chunks == []  # call markup is never streamed


def test_a_call_runs_past_the_text_budget_unless_the_caller_set_one(model) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local import LocalModel

    # 6 tokens is less than any call's markup: before, such a call was cut and lost (the reviewer's long
    # skill_manage calls ended its run with nothing written)
    forced = LocalModel(path=default_model_file(), tool_choice="required", max_tokens=6)
    ask = [SYSTEM, {"role": "user", "content": "Read the file notes.txt"}]
    reply = forced.complete(ask, [READ_FILE], ModelSettings())
    assert reply.finish_reason == "tool_calls" and reply.tool_calls[0].name == "read_file"
    assert reply.usage.completion_tokens > 6
    cut = forced.complete(ask, [READ_FILE], ModelSettings(max_tokens=6))
    assert not cut.tool_calls and cut.finish_reason == "length"


def test_does_not_repeat_the_call_it_just_got_the_result_of(model) -> None:  # type: ignore[no-untyped-def]
    call = {
        "id": "call_0",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "notes.txt"}'},
    }
    history = [
        SYSTEM,
        {"role": "user", "content": "Read the file notes.txt"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_0", "content": "buy milk"},
    ]
    reply = model.complete(history, [READ_FILE], ModelSettings(max_tokens=48))
    # SmolLM2 may ramble past 48 tokens once it is made to answer in text ("length"); what matters is below.
    assert reply.finish_reason in ("stop", "tool_calls", "length")
    again = [
        tc for tc in reply.tool_calls if (tc.name, tc.arguments) == ("read_file", '{"path": "notes.txt"}')
    ]
    assert again == []
    assert reply.text or reply.tool_calls


def test_second_turn_reuses_the_kv_cache(model) -> None:  # type: ignore[no-untyped-def]
    turn1 = [SYSTEM, {"role": "user", "content": "Say hello."}]
    first = model.complete(turn1, [READ_FILE], SHORT)
    turn2 = [*turn1, first.to_message(), {"role": "user", "content": "Say goodbye."}]
    assert model.render(turn2, [READ_FILE]).startswith(model.render(turn1, [READ_FILE]))
    second = model.complete(turn2, [READ_FILE], SHORT)
    assert second.usage.cached_tokens > 0
    # Everything up to the new user turn comes from the cache, give or take a token at the seam.
    assert second.usage.cached_tokens >= first.usage.prompt_tokens - 2
    assert second.usage.cached_tokens < second.usage.prompt_tokens


def test_system_prompt_kv_is_kept_on_disk_for_the_next_process(model, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local import LocalModel

    cached = LocalModel(path=default_model_file(), prompt_cache_dir=tmp_path)
    rules = " ".join(f"Rule {i}: be kind and brief." for i in range(12))
    ask = [{"role": "system", "content": f"You are grove. {rules}"}, {"role": "user", "content": "Say hi."}]
    first = cached.complete(ask, [], ModelSettings(max_tokens=6))
    assert len(list(tmp_path.glob("*.kv"))) == 1
    cached.drop_cache()  # as in a new process: nothing in memory
    second = cached.complete(ask, [], ModelSettings(max_tokens=6))
    system_tokens = cached.count_tokens(cached.render(ask[:1], []).rsplit("<|im_start|>assistant", 1)[0])
    assert second.usage.cached_tokens >= system_tokens - 2
    assert second.text == first.text


def test_prompt_longer_than_the_context_is_an_overflow(model) -> None:  # type: ignore[no-untyped-def]
    huge = [SYSTEM, {"role": "user", "content": "word " * (model.context_window + 100)}]
    with pytest.raises(ModelError) as err:
        model.complete(huge, [], SHORT)
    assert err.value.kind is ErrorKind.CONTEXT_OVERFLOW


def test_build_model_makes_the_local_model(settings) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local import LocalModel
    from grove.llm.spec import build_model

    link_into(settings.home)
    built = build_model("local", settings)
    assert isinstance(built, LocalModel)
    assert built.context_window == settings.local.n_ctx
    assert built.path.suffix == ".gguf"


def test_a_grammar_the_runtime_refuses_is_an_error_not_a_crash(model) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local_engine import GrammarRejected

    loaded = model._loaded()
    lark = loaded.engine.grammar_dialect == "lark"
    broken = "%llguidance {}\nstart: undefined_rule\n" if lark else "root ::= undefined-rule"
    tokens = loaded.engine.tokenize(model.render([SYSTEM, {"role": "user", "content": "hi"}], []))
    with loaded.lock, pytest.raises(GrammarRejected):
        loaded.engine.generate(  # a broken grammar would crash llama.cpp if sampled with
            tokens,
            broken,
            temperature=0.0,
            repeat_penalty=1.0,
            seed=None,
            limit=4,
            stop=loaded.end_of_turn,
            on_piece=lambda piece: False,
        )
    assert model.complete([SYSTEM, {"role": "user", "content": "hi"}], [], SHORT).text  # still answers


def test_varied_schemas_still_give_a_valid_call() -> None:
    from grove.llm.local import LocalModel

    varied = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"type": "string", "format": "uri"},
            "c": {"type": "string", "pattern": "^[a-z]+$"},
            "d": {"$ref": "#/$defs/Item"},
            "e": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
            "f": {"enum": ["x", "y"]},
            "h": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["a"],
        "$defs": {"Item": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
    }
    tools = [
        {"type": "function", "function": {"name": "x.y-z", "description": "", "parameters": varied}},
        {"type": "function", "function": {"name": "no_params"}},
        READ_FILE,
    ]
    forced = LocalModel(path=default_model_file(), tool_choice="required")
    ask = [SYSTEM, {"role": "user", "content": "Read the file notes.txt"}]
    reply = forced.complete(ask, tools, ModelSettings(max_tokens=64))
    assert reply.finish_reason == "tool_calls"
    call = reply.tool_calls[0]
    args = json.loads(call.arguments)
    assert isinstance(args, dict)
    if call.name == "read_file":
        assert set(args) <= {"path", "limit"} and isinstance(args["path"], str)
    else:
        assert call.name in {"x.y-z", "no_params"}
    if call.name == "x.y-z":
        assert "a" in args and set(args) <= set(varied["properties"])


def test_a_grammar_that_admits_the_reply_does_not_change_it(model) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local_grammar import text_grammar

    # The end of turn must stay allowed under a grammar: llguidance admitted only the tokenizer's own end token,
    # and SmolLM2's answer ran on past "Paris." to the token budget.
    loaded = model._loaded()
    ask = [SYSTEM, {"role": "user", "content": "What is the capital of France? One sentence."}]
    tokens = loaded.engine.tokenize(model.render(ask, []))

    def reply(grammar: str | None):  # type: ignore[no-untyped-def]
        with loaded.lock:
            return loaded.engine.generate(
                tokens,
                grammar,
                temperature=0.0,
                repeat_penalty=1.0,
                seed=None,
                limit=48,
                stop=loaded.end_of_turn,
                on_piece=lambda piece: False,
            )

    free = reply(None)
    assert free.finish == "stop", free  # the model ends this answer by itself
    held = reply(text_grammar(loaded.engine.grammar_dialect))
    assert (held.text, held.finish, held.n_out) == (free.text, free.finish, free.n_out)


def test_ctrl_c_stops_a_generation_at_once(model) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal
    import threading
    import time

    # xllamacpp's callback wrapper printed and dropped the KeyboardInterrupt, and the reply ran on to its budget
    story = [SYSTEM, {"role": "user", "content": "Write a long story about a dragon."}]
    model.complete(
        story, [], ModelSettings(max_tokens=2)
    )  # the prompt is in the KV cache: tokens flow at once
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        model.complete(story, [], ModelSettings(max_tokens=2000))
    assert time.monotonic() - start < 15
    assert model.complete(
        [SYSTEM, {"role": "user", "content": "hi"}], [], SHORT
    ).text  # the model still answers
