"""Which runtime runs the embedded model (one place: grove.llm.local_runtime), the chat template rendered as
llama-cpp-python renders it, and the grammar in llguidance's form for xllamacpp."""

from __future__ import annotations

import importlib.util
import json

import pytest

from grove.llm import local_runtime
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_calls import FENCED, TAGGED, CallFormat
from grove.llm.local_grammar import _closed, build_grammar, text_grammar, tool_specs
from grove.llm.local_template import CHATML, ChatTemplate

READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path"],
        },
    },
}
TURNS = [
    {"role": "system", "content": "You are grove."},
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": '<tool_call>\n{"name": "x", "arguments": {}}\n</tool_call>'},
    {"role": "user", "content": "<tool_response>\nok\n</tool_response>"},
]


def test_the_first_installed_runtime_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(local_runtime.RUNTIME_ENV, raising=False)
    installed = {"xllamacpp"}
    monkeypatch.setattr(
        local_runtime.importlib.util, "find_spec", lambda m: object() if m in installed else None
    )
    assert local_runtime.runtime_name() == "xllamacpp"  # an install without a compiler
    installed.add("llama_cpp")
    assert local_runtime.runtime_name() == "llama-cpp-python"  # the measured one wins when both are there
    monkeypatch.setenv(local_runtime.RUNTIME_ENV, "xllamacpp")
    assert local_runtime.runtime_name() == "xllamacpp"
    installed.clear()
    with pytest.raises(ModelError) as err:
        local_runtime.runtime_name()
    assert err.value.kind is ErrorKind.MODEL_NOT_FOUND and "not installed" in str(err.value)
    monkeypatch.delenv(local_runtime.RUNTIME_ENV)
    with pytest.raises(ModelError) as err:
        local_runtime.runtime_name()
    assert 'pip install "grove-agent[local]"' in str(err.value)
    assert not local_runtime.runtime_installed()


def test_an_unknown_runtime_is_named_with_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(local_runtime.RUNTIME_ENV, "vllm")
    with pytest.raises(ModelError) as err:
        local_runtime.runtime_name()
    assert err.value.kind is ErrorKind.BAD_REQUEST
    assert "xllamacpp" in str(err.value) and "llama-cpp-python" in str(err.value)


def test_chatml_renders_turns_and_the_generation_prompt() -> None:
    template = ChatTemplate("", "<|im_start|>", "<|im_end|>")
    assert template.source == CHATML and template.end_of_turn() == "<|im_end|>"
    text = template.render(TURNS[:2])
    assert (
        text
        == "<|im_start|>system\nYou are grove.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )
    assert ChatTemplate("{{ messages[0]['content'] }}", "", "</s>").end_of_turn() == "</s>"


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="compares with llama-cpp-python")
def test_the_prompt_is_the_one_llama_cpp_python_renders() -> None:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    # a template that reads the date, raises on a bad role and trims blocks, as Qwen's and others do
    source = (
        "{% for m in messages %}{% if m['role'] not in ['system', 'user', 'assistant'] %}"
        "{{ raise_exception('bad role') }}{% endif %}\n  {{ bos_token + m['role'] + ': ' + m['content'] + eos_token }}"
        "{% endfor %}{% if tools is none %}[no tools]{% endif %}{% if add_generation_prompt %}assistant:{% endif %}"
    )
    ours = ChatTemplate(source, "<s>", "</s>").render(TURNS)
    theirs = Jinja2ChatFormatter(template=source, eos_token="</s>", bos_token="<s>")(messages=TURNS).prompt
    assert ours == theirs
    with pytest.raises(ValueError, match="bad role"):
        ChatTemplate(source, "<s>", "</s>").render([{"role": "robot", "content": "x"}])


def test_the_lark_grammar_offers_text_and_each_shape_of_each_tool() -> None:
    other = json.loads(json.dumps(READ_FILE).replace("read_file", "list_dir"))
    qwen = CallFormat("<tool_call>\n", "\n</tool_call>")
    grammar = build_grammar(tool_specs([READ_FILE, other]), fmt=qwen, dialect="lark")
    lines = grammar.splitlines()
    assert lines[0] == "%llguidance {}"
    assert (
        lines[1]
        == 'start: text | "<tool_call>\\n" call "\\n</tool_call>" | call | "```json\\n" call "\\n```"'
    )
    assert lines[3] == "call: call0 | call1"
    assert 'call0: "{\\"name\\": \\"read_file\\", \\"arguments\\": " args0 "}"' in lines
    assert 'call1: "{\\"name\\": \\"list_dir\\", \\"arguments\\": " args1 "}"' in lines
    args0 = json.loads(
        next(line for line in lines if line.startswith("args0: %json "))[len("args0: %json ") :]
    )
    assert args0["additionalProperties"] is False and args0["required"] == ["path"]
    forced = build_grammar(tool_specs([READ_FILE]), allow_text=False, shapes=(TAGGED, FENCED), dialect="lark")
    assert forced.splitlines()[1] == 'start: "<tool_call>" call "</tool_call>" | "```json\\n" call "\\n```"'
    untyped = build_grammar(tool_specs([READ_FILE]), typed_args=False, dialect="lark")
    assert 'args0: %json {"type": "object", "x-guidance"' in untyped
    assert text_grammar("lark").splitlines()[1].startswith("start: /[^<{` ")


def test_closed_schemas_admit_no_unnamed_property_but_keep_open_ones_open() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "string"}}},
            "m": {"type": "object"},
        },
        "$defs": {"D": {"properties": {"q": {}}}},
        "enum_holder": {"enum": [{"properties": {}}]},
    }
    closed = _closed(schema)
    assert closed["additionalProperties"] is False
    assert closed["properties"]["a"]["additionalProperties"] is False
    assert "additionalProperties" not in closed["properties"]["m"]  # no named properties: any object
    assert closed["$defs"]["D"]["additionalProperties"] is False
    open_map = {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}}
    assert _closed(open_map)["additionalProperties"] == {"type": "string"}
    assert schema["properties"]["a"] == {
        "type": "object",
        "properties": {"b": {"type": "string"}},
    }  # untouched
