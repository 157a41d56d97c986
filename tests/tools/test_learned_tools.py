"""Learned tools: a code skill grove made is a tool of its own in the next session (typed arguments + output_path),
an imported one is not, and a folder argument maps the folder's files in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grove.agent.loop import Agent
from grove.codeskills.canonical import CSV_CODE, CSV_TESTS
from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.runtime.assemble import open_agent
from grove.runtime.profile import Profile
from grove.skills import usage
from grove.store.sessions import SessionStore
from grove.tools import code_skills
from grove.tools.context import ToolContext
from grove.tools.learned import MAX_LEARNED_TOOLS, as_tool
from grove.tools.registry import ToolRegistry

TOTAL_CODE = '''import csv


def solve(path: str, column: str, scale: int = 1) -> int:
    """The total of one integer column of a CSV file, times scale."""
    with open(path, newline="", encoding="utf-8") as f:
        return scale * sum(int(row[column]) for row in csv.DictReader(f))
'''
TOTAL_TESTS = """from skill import solve


def test_total(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("name,amount\\na,2\\nb,5\\n")
    assert solve(str(p), "amount") == 7
    assert solve(str(p), "amount", scale=2) == 14
"""
LIST_CODE = '''import os


def solve(folder: str) -> list:
    """Every file under a folder, sorted."""
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs)
'''
LIST_TESTS = """from skill import solve


def test_lists(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_text("x")
    assert solve(str(tmp_path / "a")) == [str(tmp_path / "a" / "x.txt")]
"""


def _create(
    settings: Settings, store: SessionStore, workspace: Path, name: str, code: str, tests: str
) -> None:
    reg = ToolRegistry(code_skills.tools())
    ctx = ToolContext(workspace=workspace, settings=settings, store=store)
    out = reg.call(
        ctx,
        "skill_code_create",
        {"name": name, "description": f"The {name} tool.", "code": code, "tests": tests},
    )
    assert out.ok, out.content


def _session(
    settings: Settings,
    store: SessionStore,
    workspace: Path,
    spec: str = "script",
    toolsets: list[str] | None = None,
) -> Agent:
    model = ScriptModel(["ok"], name=spec)
    profile = Profile(workspace=workspace, toolsets=toolsets, model=model)
    return open_agent(settings, profile, store=store)


def _offered(settings: Settings, store: SessionStore, workspace: Path, **kw: Any) -> tuple[list[str], str]:
    """The tools a new session is given, and its system prompt."""
    agent = _session(settings, store, workspace, **kw)
    try:
        return agent.tools.names(), str(agent.messages[0]["content"])
    finally:
        agent.close()


def test_a_code_skill_grove_made_is_a_tool_of_the_next_session(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    _create(settings, store, workspace, "csv-total", TOTAL_CODE, TOTAL_TESTS)
    agent = _session(settings, store, workspace)
    try:
        tool = agent.tools.get("csv-total")
        assert tool is not None and tool.toolset == "learned"
        params = tool.schema["function"]["parameters"]
        assert params["required"] == ["path", "column"]
        assert set(params["properties"]) == {"path", "column", "scale", "output_path"}
        (workspace / "data.csv").write_text("name,amount\na,10\nb,32\n")
        out = agent.tools.call(
            agent.ctx, "csv-total", {"path": "data.csv", "column": "amount", "output_path": "t.txt"}
        )
        assert out.ok, out.content
        assert (workspace / "t.txt").read_text().strip() == "42"  # the solve default (scale=1) applied
        assert out.content.startswith("wrote the result to t.txt: 42") and "no write_file" in out.content
        wrong = agent.tools.call(agent.ctx, "csv-total", {"path": "data.csv"})
        assert not wrong.ok and "column" in wrong.content
    finally:
        agent.close()
    assert usage.stats(store.db, ["csv-total"])["csv-total"].runs >= 1


def test_an_imported_code_skill_is_not_a_tool(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    _create(settings, store, workspace, "csv-column", CSV_CODE, CSV_TESTS)
    with store.db.lock:  # as if an import had created it: third-party code never becomes a tool of its own
        store.db.conn.execute("UPDATE skill_usage SET created_by = 'import' WHERE name = 'csv-column'")
    assert "csv-column" not in _offered(settings, store, workspace)[0]


def test_only_sessions_with_the_skills_toolset_get_learned_tools(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    _create(settings, store, workspace, "csv-total", TOTAL_CODE, TOTAL_TESTS)
    assert "csv-total" not in _offered(settings, store, workspace, toolsets=["files"])[0]


def test_a_local_session_sees_the_learned_tool_not_its_skill_body(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    _create(settings, store, workspace, "csv-total", TOTAL_CODE, TOTAL_TESTS)
    names, prompt = _offered(settings, store, workspace, spec="local:tiny")
    assert "csv-total" in names and "## Contract" not in prompt


def test_a_folder_argument_maps_the_folders_files(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    _create(settings, store, workspace, "list-files", LIST_CODE, LIST_TESTS)
    (workspace / "src" / "sub").mkdir(parents=True)
    (workspace / "src" / "a.py").write_text("a")
    (workspace / "src" / "sub" / "b.py").write_text("b")
    (workspace / "src" / ".hidden").write_text("h")
    agent = _session(settings, store, workspace)
    try:
        out = agent.tools.call(agent.ctx, "list-files", {"folder": "src"})
    finally:
        agent.close()
    assert out.ok, out.content
    assert out.content == 'result: [\n  "src/a.py",\n  "src/sub/b.py"\n]'


def test_optional_arguments_and_a_skill_of_its_own_output_path() -> None:
    contract = {
        "args": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "output_path": {"type": "string"},
                "n": {"type": "integer"},
            },
            "required": ["text", "output_path"],
        }
    }
    tool = as_tool("write-text", "Write text.", contract, Path("unused"))
    params = tool.schema["function"]["parameters"]
    assert params["required"] == ["text", "output_path"] and params["properties"]["n"]["type"] == "integer"
    assert MAX_LEARNED_TOOLS >= 1


@pytest.mark.parametrize("name", ["read_file"])
def test_a_code_skill_named_like_a_tool_does_not_replace_it(
    settings: Settings, store: SessionStore, workspace: Path, name: str
) -> None:
    from grove.tools.learned import learned_tools

    _create(settings, store, workspace, "csv-total", TOTAL_CODE, TOTAL_TESTS)
    assert [t.name for t in learned_tools(settings, store.db, {"csv-total"})] == []
    assert [t.name for t in learned_tools(settings, store.db, {name})] == ["csv-total"]


SET_CODE = '''import json


def solve(path: str, key: str, value: int) -> None:
    """Set a key of a JSON file in place."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data[key] = value
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
'''
SET_TESTS = """import json
from skill import solve


def test_set(tmp_path):
    p = tmp_path / "c.json"
    p.write_text('{"a": 1}')
    solve(str(p), "a", 2)
    assert json.loads(p.read_text()) == {"a": 2}
"""


def test_a_learned_tool_may_change_the_file_its_call_names_but_skill_run_may_not(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    _create(settings, store, workspace, "json-set", SET_CODE, SET_TESTS)
    (workspace / "config.json").write_text('{"a": 1, "b": 2}')
    (workspace / "other.json").write_text('{"a": 1}')
    agent = _session(settings, store, workspace)
    try:
        # output_path on a tool that changes its file in place and returns None: nothing written over the change
        out = agent.tools.call(
            agent.ctx,
            "json-set",
            {"path": "config.json", "key": "a", "value": 7, "output_path": "config.json"},
        )
    finally:
        agent.close()
    assert out.ok, out.content
    assert json.loads((workspace / "config.json").read_text()) == {"a": 7, "b": 2}
    assert out.content.startswith('changed config.json; it now reads:\n{"a": 7, "b": 2}')
    assert json.loads((workspace / "other.json").read_text()) == {"a": 1}
    reg = ToolRegistry(code_skills.tools())
    ctx = ToolContext(workspace=workspace, settings=settings, store=store)
    read_only = reg.call(
        ctx, "skill_run", {"name": "json-set", "args": {"path": "config.json", "key": "a", "value": 9}}
    )
    assert not read_only.ok and json.loads((workspace / "config.json").read_text())["a"] == 7


def test_an_untyped_argument_is_offered_as_a_scalar() -> None:
    contract = {
        "args": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "value": {}},
            "required": ["path", "value"],
        }
    }
    value = as_tool("set-key", "Set a key.", contract, Path("unused")).schema["function"]["parameters"][
        "properties"
    ]["value"]
    assert [v["type"] for v in value["anyOf"]] == ["string", "integer", "number", "boolean"]
