"""Typed tools: schemas from signatures and docstrings, validation errors the model can act on."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.errors import GroveError
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext
from grove.tools.registry import ToolError, make_tool


def greet(ctx: ToolContext, name: str, times: int = 1, loud: bool = False) -> str:
    """Greet someone.

    Args:
        name: who to greet
        times: how many times
        loud: shout it
    """
    if times < 1:
        raise ToolError("times must be at least 1")
    text = " ".join([f"hello {name}"] * times)
    return text.upper() if loud else text


def test_schema_from_signature_and_docstring() -> None:
    schema = make_tool(greet, toolset="t").schema["function"]
    assert schema["name"] == "greet" and schema["description"] == "Greet someone."
    params = schema["parameters"]
    assert params["required"] == ["name"]
    assert params["properties"]["times"] == {"default": 1, "description": "how many times", "type": "integer"}
    assert "title" not in str(params)  # titles cost tokens and say nothing


def test_call_validates_and_reports(tmp_path: Path) -> None:
    tool = make_tool(greet, toolset="t")
    ctx = ToolContext(workspace=tmp_path)
    assert tool.call(ctx, '{"name": "ada", "times": 2}').content == "hello ada hello ada"
    bad = tool.call(ctx, '{"times": "many"}')
    assert not bad.ok and "name: Field required" in bad.content and "times" in bad.content
    extra = tool.call(ctx, '{"name": "x", "colour": "red"}')
    assert not extra.ok and "colour" in extra.content
    err = tool.call(ctx, '{"name": "x", "times": 0}')
    assert not err.ok and err.content == "Error: times must be at least 1"


def test_default_toolsets_stay_small() -> None:
    reg = builtin_registry()
    assert reg.select(["files", "todo"]).names() == [
        "read_file",
        "write_file",
        "patch",
        "search_files",
        "todo",
    ]
    assert reg.select([]).schemas() == []
    with pytest.raises(GroveError, match=r"known: (browser, )?code_skills, (cron, )?delegate, files"):
        reg.select(["nope"])
