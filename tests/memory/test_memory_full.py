"""A full memory never drops an entry: fill MEMORY.md and USER.md far past their limits through the tool, and every
entry ever added is still found, in the file or its archive; the model is told, the user gets a notice."""

from __future__ import annotations

import json
from pathlib import Path

from grove.config import Settings
from grove.config.memory import MemoryConfig
from grove.memory.files import MemoryFiles
from grove.memory.prompt import memory_prompt_block
from grove.tools import memory as memory_tools
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry


def call(ctx: ToolContext, **args: object) -> tuple[bool, str]:
    result = ToolRegistry(memory_tools.tools()).call(ctx, "memory", json.dumps(args))
    return result.ok, result.content


def test_filling_both_files_loses_no_entry(settings: Settings, workspace: Path) -> None:
    notices: list[str] = []
    ctx = ToolContext(workspace=workspace, settings=settings, notify=notices.append)
    added = {"memory": [], "user": []}
    told = 0
    for i in range(60):  # ~60 x 60 chars each: both files (2,200 and 1,375 chars) overflow many times over
        for target, what in (("memory", "the build of service"), ("user", "the user likes colour")):
            entry = f"{what} number {i:02d} is recorded with a unique tag t{target[0]}{i:02d}x"
            ok, text = call(ctx, action="add", target=target, content=entry)
            assert ok, text
            told += "was full" in text and "moved to memory/archive/" in text
            added[target].append(entry)
    files = MemoryFiles(settings.home, MemoryConfig())
    for target, entries in added.items():
        live, archived = files.entries(target), files.archived(target)
        assert files.fill(target).used <= files.limit(target)  # the limit still holds
        assert sorted(live + archived) == sorted(entries)  # every entry is in exactly one place
        assert archived and live
    assert told >= 2 and any("nothing lost" in n for n in notices)
    for target, entries in added.items():  # and each is retrievable through the tool, by its own words
        for i, entry in enumerate(entries):
            ok, text = call(ctx, query=f"t{target[0]}{i:02d}x")
            assert ok and entry in text, (entry, text)
    ok, text = call(ctx, query="tm00x")
    assert ok and text.startswith("[archive/MEMORY.md] ")
    assert "older entries archived" in memory_prompt_block(settings)


def test_search_argument_errors_and_misses(settings: Settings, workspace: Path) -> None:
    ctx = ToolContext(workspace=workspace, settings=settings)
    ok, text = call(ctx, query="anything", action="add", target="memory", content="x")
    assert not ok and "not both" in text
    ok, text = call(ctx, query="zebra")
    assert ok and "no memory entry" in text
