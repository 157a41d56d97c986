"""Tool calls of local models: every natural call shape parses and round-trips byte for byte into history; the
grammar admits exactly those shapes for offered tools with valid arguments (checked with llama.cpp's own grammar
sampler over SmolLM2's vocabulary when the [local] extra is installed)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from tests.llm_local.default_model import default_model_file

from grove.llm.local_calls import (
    BARE,
    FENCED,
    TAGGED,
    CallFormat,
    call_format,
    find_embedded,
    looks_like_call,
    parse_call,
    parse_shaped,
    render_call,
)
from grove.llm.local_grammar import describe_tools, tool_specs
from grove.llm.local_history import result_chars, to_template_messages, trim_result
from grove.llm.types import ToolCall

QWEN = CallFormat("<tool_call>\n", "\n</tool_call>")
READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path"],
        },
    },
}
WRITE_FILE = {
    "type": "function",
    "function": {
        "name": "write_file",
        "description": "Write a file.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
}
ARGS = '{"path": "a.txt", "limit": 5}'


@pytest.mark.parametrize("shape", [TAGGED, BARE, FENCED])
@pytest.mark.parametrize("fmt", [CallFormat(), QWEN])
def test_each_shape_renders_and_parses_back_to_the_same_bytes(shape: str, fmt: CallFormat) -> None:
    text = render_call("read_file", ARGS, shape, fmt)
    parsed = parse_shaped(text, "call_3")
    assert parsed is not None
    assert parsed.call == ToolCall("call_3", "read_file", ARGS)
    assert parsed.shape == shape
    assert render_call(parsed.call.name, parsed.call.arguments, parsed.shape, fmt) == text


def test_the_shapes_look_as_models_write_them() -> None:
    assert render_call("f", "{}", TAGGED, QWEN) == '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    assert render_call("f", "{}", BARE) == '{"name": "f", "arguments": {}}'
    assert render_call("f", "{}", FENCED) == '```json\n{"name": "f", "arguments": {}}\n```'


def test_raw_argument_whitespace_is_kept_for_the_kv_cache() -> None:
    text = '{"name": "read_file", "arguments": {"path": "a.txt" } }'
    parsed = parse_shaped(text)
    assert parsed is not None and parsed.call.arguments == '{"path": "a.txt" } '
    assert render_call("read_file", parsed.call.arguments, parsed.shape) == text


@pytest.mark.parametrize(
    "text",
    [
        "Paris is the capital.",
        '{"name": "read_file", "arguments": {"path": "a.txt"}',  # cut off
        '```json\n{"name": "read_file", "arguments": [1]}\n```',  # arguments must be an object
        '<tool_call>\n{"name": "read_file"}\n</tool_call>',  # no arguments
        '{"path": "a.txt"}',  # arguments without a name
    ],
)
def test_what_is_not_one_complete_call_is_not_a_call(text: str) -> None:
    assert parse_call(text) is None


def test_a_call_written_inside_prose_is_found_only_for_offered_tools() -> None:
    text = 'To total it, read it first:\n\n```json\n{"name": "read_file", "arguments": {"path": "f.txt"}}\n```\nThen add.'
    assert find_embedded(text, {"read_file"}, "call_2") == ToolCall(
        "call_2", "read_file", '{"path": "f.txt"}'
    )
    assert find_embedded(text, {"write_file"}) is None
    assert find_embedded('Use {"name": "read_file", "arguments": "x"} maybe', {"read_file"}) is None
    assert find_embedded("No call here {not json", {"read_file"}) is None


def test_the_template_decides_the_tagged_spelling() -> None:
    qwen = '{{- \'\\n<tool_call>\\n{"name": "\' }}'  # as it reads in Qwen2.5's template source
    assert call_format(qwen) == QWEN
    assert call_format("{% for m in messages %}<|im_start|>{% endfor %}") == CallFormat()
    assert "<tool_call>\n{" in describe_tools(tool_specs([READ_FILE]), QWEN)


def test_calls_go_back_into_history_in_the_shape_they_came_in() -> None:
    calls = [ToolCall("call_0", "read_file", ARGS).to_message()]
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_0", "content": "r"},
    ]
    fenced = render_call("read_file", ARGS, FENCED)
    assert to_template_messages(messages, "T", QWEN, {("read_file", ARGS): fenced})[2]["content"] == fenced
    said = "First I read it:\n" + fenced  # words around a call stay too: the KV cache holds them
    assert to_template_messages(messages, "T", QWEN, {("read_file", ARGS): said})[2]["content"] == said
    default = to_template_messages(messages, "T", QWEN)
    assert default[2]["content"] == render_call("read_file", ARGS, TAGGED, QWEN)


def test_long_tool_results_are_cut_in_the_prompt_only() -> None:
    long = "".join(f"line {i}\n" for i in range(2000))
    messages = [
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": None, "tool_calls": [ToolCall("c", "read_file", ARGS).to_message()]},
        {"role": "tool", "tool_call_id": "c", "content": long},
    ]
    limit = result_chars(4096)
    turn = to_template_messages(messages, "", result_limit=limit)[2]["content"]
    assert len(turn) < limit + 300
    assert turn.startswith("<tool_response>\nline 0\n") and turn.endswith("line 1999\n\n</tool_response>")
    assert "characters cut to fit the context window" in turn
    assert messages[2]["content"] == long  # the session keeps the whole result
    assert trim_result("short", limit) == "short"


@pytest.mark.parametrize("text", ["<tool_call>", '{"name"', "```json", "  {"])
def test_call_markup_is_never_mistaken_for_an_answer(text: str) -> None:
    assert looks_like_call(text)
    assert not looks_like_call("Sure: {x}")


needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or default_model_file() is None,
    reason="needs llama-cpp-python ([local-llamacpp]) and the default model's file for a vocabulary",
)


@pytest.fixture(scope="module")
def vocab():  # type: ignore[no-untyped-def]
    from tests.llm_local.grammar_check import vocab_model

    return vocab_model()


@pytest.fixture(scope="module")
def grammar():  # type: ignore[no-untyped-def]
    from grove.llm.local_grammar import build_grammar

    return build_grammar(tool_specs([READ_FILE, WRITE_FILE]), fmt=QWEN)


def allows(vocab, grammar: str, text: str) -> bool:  # type: ignore[no-untyped-def]
    from tests.llm_local.grammar_check import grammar_allows

    return grammar_allows(vocab, grammar, text)


@needs_llama
@pytest.mark.parametrize("shape", [TAGGED, BARE, FENCED])
def test_the_grammar_admits_each_shape_of_a_valid_call(vocab, grammar, shape: str) -> None:  # type: ignore[no-untyped-def]
    assert allows(vocab, grammar, render_call("read_file", ARGS, shape, QWEN))
    content = json.dumps({"path": "out.txt", "content": 'x = "1"\nprint(x)'})
    assert allows(vocab, grammar, render_call("write_file", content, shape, QWEN))


@needs_llama
@pytest.mark.parametrize(
    "text",
    [
        render_call("delete_file", '{"path": "a.txt"}', BARE),  # not an offered tool
        render_call("read_file", '{"limit": 5}', TAGGED, QWEN),  # required argument missing
        render_call("read_file", '{"path": 5}', FENCED),  # wrong type
        render_call("read_file", '{"path": "a", "limit": "5"}', BARE),  # wrong type
        render_call("read_file", ARGS, TAGGED),  # not the template's spelling of the tag
        '{"name": "read_file", "arguments": {"path": "a"}',  # unfinished
        "```python\nprint(1)\n```",  # a fence that is no call
        "<b>bold</b>",
        " leading blank",
    ],
)
def test_the_grammar_makes_invalid_calls_impossible(vocab, grammar, text: str) -> None:  # type: ignore[no-untyped-def]
    assert not allows(vocab, grammar, text)


@needs_llama
def test_the_grammar_admits_plain_text_unless_a_call_is_required(vocab, grammar) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local_grammar import build_grammar

    assert allows(vocab, grammar, "The file has 3 lines.")
    forced = build_grammar(tool_specs([READ_FILE]), allow_text=False, fmt=QWEN)
    assert not allows(vocab, forced, "The file has 3 lines.")
    assert allows(vocab, forced, render_call("read_file", '{"path": "a"}', FENCED))


@needs_llama
def test_a_raw_line_break_in_a_string_is_admitted_and_parsed(vocab, grammar) -> None:  # type: ignore[no-untyped-def]
    # coder models write code with real line breaks; forbidding them made Qwen drop the text before one
    text = '{"name": "write_file", "arguments": {"path": "o.py", "content": "a = 1\nprint(a)"}}'
    assert allows(vocab, grammar, text)
    call = parse_call(text)
    assert call is not None and json.loads(call.arguments) == {"path": "o.py", "content": "a = 1\nprint(a)"}
