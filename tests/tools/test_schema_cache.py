"""The on-disk cache of tool schemas: same bytes as deriving them, used when valid, ignored when not."""

from __future__ import annotations

import json
from pathlib import Path

from grove.tools.builtin import builtin_registry
from grove.tools.registry import ToolRegistry, make_tool
from grove.tools.schema_cache import prime_schemas


def derived() -> ToolRegistry:
    return builtin_registry().select(["files", "todo"])


def test_schemas_from_the_cache_are_the_derived_ones_byte_for_byte(tmp_path: Path) -> None:
    cache = tmp_path / "schemas.json"
    first = derived()
    prime_schemas(first, cache)
    assert cache.is_file()
    second = derived()
    prime_schemas(second, cache)
    assert json.dumps(second.schemas()) == json.dumps(derived().schemas())
    assert all("args_model" not in second.get(n).__dict__ for n in second.names())  # nothing was derived


def test_a_valid_cache_is_what_the_model_sees(tmp_path: Path) -> None:
    cache = tmp_path / "schemas.json"
    prime_schemas(derived(), cache)
    data = json.loads(cache.read_text())
    for schema in data["schemas"].values():
        schema["function"]["description"] = "from the cache"
    cache.write_text(json.dumps(data))
    tools = derived()
    prime_schemas(tools, cache)
    assert {s["function"]["description"] for s in tools.schemas()} == {"from the cache"}


def test_an_outdated_or_broken_cache_is_rederived_and_rewritten(tmp_path: Path) -> None:
    cache = tmp_path / "schemas.json"
    prime_schemas(derived(), cache)
    data = json.loads(cache.read_text())
    for schema in data["schemas"].values():
        schema["function"]["description"] = "stale"
    cache.write_text(json.dumps({**data, "version": "an older grove"}))
    tools = derived()
    prime_schemas(tools, cache)
    assert "stale" not in json.dumps(tools.schemas())
    assert json.loads(cache.read_text())["version"] != "an older grove"
    cache.write_text("{not json")
    tools = derived()
    prime_schemas(tools, cache)
    assert tools.schemas() == derived().schemas()


def test_a_changed_signature_or_docstring_gets_a_new_schema(tmp_path: Path) -> None:
    def greet(ctx: object, name: str) -> str:
        """Say hello.

        Args:
            name: who to greet
        """
        return name

    def greet2(ctx: object, name: str, loud: bool = False) -> str:
        """Say hello.

        Args:
            name: who to greet
            loud: shout
        """
        return name

    cache = tmp_path / "schemas.json"
    prime_schemas(ToolRegistry([make_tool(greet, toolset="t", name="greet")]), cache)
    tools = ToolRegistry([make_tool(greet2, toolset="t", name="greet")])
    prime_schemas(tools, cache)
    assert "loud" in tools.schemas()[0]["function"]["parameters"]["properties"]
