"""A user message naming a file or folder makes a local model's reply a tool call (it cannot see files); a learned
tool that saved the task's file makes it the answer."""

from __future__ import annotations

import pytest

from grove.llm.local_turns import must_call, names_a_path


@pytest.mark.parametrize(
    "text",
    [
        "Add up the 'amount' column of data.csv and write the total to total.txt.",
        "List every TODO comment under src/ in TODO.md",
        'In config.json set "port" to 8080',
        "Rename calc in src/tool.py",
        "what does the folder docs/ hold?",
    ],
)
def test_a_named_file_or_folder_needs_a_call(text: str) -> None:
    assert names_a_path(text)
    assert must_call([{"role": "system", "content": "s"}, {"role": "user", "content": text}])


@pytest.mark.parametrize(
    "text",
    ["What is 2 + 3?", "Say hi, e.g. hello.", "Is Python 3.12 out?", "and/or what?", "Tell me a joke."],
)
def test_a_plain_question_may_be_answered_in_text(text: str) -> None:
    assert not names_a_path(text)


def test_only_the_opening_user_message_counts() -> None:
    ask = {"role": "user", "content": "Read a.txt"}
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": {"name": "x"}}]}
    result = {"role": "tool", "content": "see b.txt", "tool_call_id": "c"}
    assert not must_call([ask, call, result])  # after a tool result the model may answer
    note = {"role": "user", "content": "[grove] The tool-call budget is used up. Do not call tools. (a.txt)"}
    assert not must_call([ask, call, result, note])
    assert not must_call([])


def test_a_call_that_failed_earlier_in_the_turn_counts_as_a_repeat() -> None:
    from grove.llm.local_history import repeats_failed_call
    from grove.llm.types import ToolCall

    args = '{"path": "CHANGELOG.md", "old_string": "## Unreleased\\n- ...", "new_string": "x"}'

    def call(i: int, name: str, arguments: str) -> dict:
        return {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{i}", "function": {"name": name, "arguments": arguments}}]}  # fmt: skip

    turn = [
        {"role": "user", "content": "Add x under ## Unreleased in CHANGELOG.md"},
        call(0, "patch", args),
        {"role": "tool", "tool_call_id": "c0", "content": "Error: old_string not found in CHANGELOG.md"},
        call(1, "search_files", '{"pattern": "Unreleased"}'),
        {"role": "tool", "tool_call_id": "c1", "content": "CHANGELOG.md:3:## Unreleased"},
    ]
    assert repeats_failed_call(turn, ToolCall("c2", "patch", args))
    assert not repeats_failed_call(turn, ToolCall("c2", "patch", args.replace("- ...", "")))
    assert not repeats_failed_call(
        turn, ToolCall("c2", "search_files", '{"pattern": "Unreleased"}')
    )  # it worked
    earlier = [*turn, {"role": "assistant", "content": "no"}, {"role": "user", "content": "again"}]
    assert not repeats_failed_call(earlier, ToolCall("c2", "patch", args))  # a new turn may try it again


def test_a_saved_file_makes_the_next_reply_the_answer() -> None:
    from grove.llm.local_turns import SAVED_NOTE, must_answer

    saved = {
        "role": "tool",
        "name": "set-key",
        "content": f"changed config.json; it now reads:\n{{}}\n{SAVED_NOTE}",
    }
    assert must_answer([{"role": "user", "content": "set it"}, saved])
    assert not must_answer([saved, {"role": "user", "content": "and now?"}])  # a new ask: free again
    assert not must_answer([{"role": "tool", "name": "read_file", "content": "config.json: {}"}])
