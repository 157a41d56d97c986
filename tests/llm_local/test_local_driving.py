"""How grove drives a small local model: file text without line numbers, Python-style calls of offered tools,
a worked read -> write example in the tool list, and fewer easily-confused tools in a local session."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.agent.prompt import LEAN_SKIP_TOOLS, lean_tools
from grove.config import Settings
from grove.llm.local_calls import CallFormat, find_python_call
from grove.llm.local_grammar import describe_tools, tool_specs
from grove.llm.local_history import to_template_messages, unnumber
from grove.llm.script import ScriptModel
from grove.llm.types import ToolCall
from grove.runtime.assemble import open_agent
from grove.runtime.profile import Profile
from grove.tools.builtin import builtin_registry

QWEN_FORMAT = CallFormat("<tool_call>\n", "\n</tool_call>")
PARAMS = {"todo": ["items"], "read_file": ["path", "offset", "limit"]}


def test_numbered_file_text_reaches_the_model_without_numbers() -> None:
    assert unnumber("     1|4\n     2|9\n     3|12") == "4\n9\n12"
    # the paging note stays: it says where to read on
    assert unnumber("     7|a\n     8|b\n[3 more lines; read on with offset=9]") == (
        "a\nb\n[3 more lines; read on with offset=9]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "1|a\n3|b",  # not consecutive: not a numbered read
        "total 1|2 and more",
        "     1|a\nplain line",
        "hello",
    ],
)
def test_other_results_keep_their_text(text: str) -> None:
    assert unnumber(text) == text


def test_history_shows_a_read_file_result_unnumbered_and_keeps_the_stored_one() -> None:
    stored = "     1|tea 3\n     2|coffee 5"
    messages = [
        {"role": "user", "content": "read prices.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [ToolCall("call_0", "read_file", '{"path": "prices.txt"}').to_message()],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": stored},
    ]
    turns = to_template_messages(messages, "")
    assert turns[-1]["content"] == "<tool_response>\ntea 3\ncoffee 5\n</tool_response>"
    assert messages[-1]["content"] == stored


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        ('todo(["plan", "build"])', "todo", '{"items": ["plan", "build"]}'),
        ('`read_file("a.txt", limit=2)`', "read_file", '{"path": "a.txt", "limit": 2}'),
        ('```python\nread_file(path="a.txt")\n```', "read_file", '{"path": "a.txt"}'),
    ],
)
def test_a_python_style_call_of_an_offered_tool_is_taken(text: str, name: str, arguments: str) -> None:
    assert find_python_call(text, PARAMS) == ToolCall("call_0", name, arguments)


@pytest.mark.parametrize(
    "text",
    [
        'print("x")',  # not an offered tool
        "read_file(path)",  # not a literal
        'read_file("a", "b", 1, 2)',  # more arguments than parameters
        'read_file(name="a.txt")',  # no such parameter
        'read_file("a.txt", path="b.txt")',  # the same parameter twice
        'Use read_file("a.txt") to see it.',  # prose that mentions a call is an answer
        "todo({1, 2})",  # a set is no JSON
        'os.remove("a.txt")',
    ],
)
def test_anything_else_is_no_python_call(text: str) -> None:
    assert find_python_call(text, PARAMS) is None


def test_the_tool_list_shows_one_worked_read_then_write() -> None:
    tools = builtin_registry().select(["files"])
    text = describe_tools(tool_specs(tools.schemas()), QWEN_FORMAT)
    assert '"Write the last word of a.txt to b.txt" gets that call first' in text
    assert '{"name": "write_file", "arguments": {"path": "b.txt", "content": "blue"}}' in text
    # without write_file there is nothing to show
    reader = builtin_registry().select(["files"]).schemas()[:1]
    assert "b.txt" not in describe_tools(tool_specs(reader), QWEN_FORMAT)


def test_lean_tools_drop_only_the_confusable_ones() -> None:
    tools = builtin_registry().select(["files", "skills", "memory", "todo"])
    lean = lean_tools(tools)
    assert (
        set(tools.names()) - set(lean.names()) == set(LEAN_SKIP_TOOLS) == {"skill_manage", "memory", "todo"}
    )
    assert "skill_view" in lean.names() and "skills_search" in lean.names()


@pytest.mark.parametrize(("name", "offered"), [("local:qwen2.5-coder-1.5b", False), ("script", True)])
def test_a_local_session_is_not_offered_skill_manage(
    settings: Settings, tmp_path: Path, name: str, offered: bool
) -> None:
    model = ScriptModel(["ok"], name=name)
    profile = Profile(toolsets=["files", "skills"], workspace=tmp_path, model=model)
    agent = open_agent(settings, profile)
    try:
        agent.run_turn("hi")
    finally:
        agent.close()
    offered_names = [t["function"]["name"] for t in model.requests[0][1]]
    assert ("skill_manage" in offered_names) is offered
    assert "write_file" in offered_names


def test_the_reviewer_keeps_its_own_tools(settings: Settings, tmp_path: Path) -> None:
    tools = builtin_registry().select(["skills"])
    model = ScriptModel(["ok"], name="local:qwen2.5-coder-1.5b")
    profile = Profile(toolsets=[], tools=tools, workspace=tmp_path, model=model)
    agent = open_agent(settings, profile)
    try:
        agent.run_turn("hi")
    finally:
        agent.close()
    assert "skill_manage" in [t["function"]["name"] for t in model.requests[0][1]]


@pytest.mark.parametrize(("name", "offered"), [("local:qwen2.5-coder-1.5b", False), ("script", True)])
def test_a_local_reviewer_gets_no_code_skill_tool_when_nothing_was_repeated(
    settings: Settings, tmp_path: Path, name: str, offered: bool
) -> None:
    from grove.runtime.review import review_session
    from grove.store.sessions import SessionStore

    store = SessionStore.open(settings.db_path)
    sid = store.create_session("script")
    for message in [{"role": "user", "content": "total data.csv"}, {"role": "assistant", "content": "42"}]:
        store.add_message(sid, message)
    local = name.startswith("local")  # a local reviewer first only judges the session (no tools): say "yes"
    reviewer = ScriptModel([*(["yes"] if local else []), "Nothing worth keeping."], name=name)
    report = review_session(settings, reviewer, sid, workspace=tmp_path, store=store)
    store.db.close()
    assert report.error is None, report.error
    names = [t["function"]["name"] for t in reviewer.requests[1 if local else 0][1]]
    assert ("skill_code_create" in names) is offered
    assert "skill_manage" in names
