"""`grove batch export`: every labelled card of a batch with its worker's trajectory, redacted, written as
ShareGPT-style and/or OpenAI fine-tuning JSONL (each file replaced atomically)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from grove.atomic_files import atomic_write_text
from grove.batch import cards, formats, trajectory
from grove.batch.dataset import Item
from grove.kanban.leases import Leases
from grove.llm.types import ToolSchema
from grove.security.secrets.redact import redact

Which = Literal["all", "passed", "failed"]


@dataclass
class Exported:
    written: int = 0
    unlabelled: int = 0  # cards still running or waiting (or never added)
    missing: int = 0  # labelled, but no trajectory here (no session recorded, or on another host)
    skipped: int = 0  # left out by --only


def tool_schemas() -> dict[str, ToolSchema]:
    """Every built-in tool's schema, kanban's included (what a worker may have been offered)."""
    from grove.tools import kanban as kanban_tools
    from grove.tools.builtin import builtin_registry

    registry = builtin_registry()
    for tool in kanban_tools.tools():
        registry.add(tool)
    return {s["function"]["name"]: s for s in registry.schemas()}


def records(
    board: Leases, name: str, items: list[Item], only: Which, report: Exported
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(sharegpt record, openai record) for each exported card, in dataset order."""
    schemas = tool_schemas()
    have = cards.find(board, name, items)
    for item in items:
        task = have.get(item.id)
        label = cards.label_of(board, task.id) if task else None
        if task is None or label is None:
            report.unlabelled += 1
            continue
        if (only == "passed" and not label.passed) or (only == "failed" and label.passed):
            report.skipped += 1
            continue
        found = trajectory.load(board, task)
        if found is None:
            report.missing += 1
            continue
        tools = formats.used_tools(found.messages, schemas)
        verdict = {**label.as_dict(), "detail": redact(label.detail)}  # a label written by an older grove
        extra = {"id": item.id, "batch": name, "label": verdict, "source": "grove"}
        report.written += 1
        yield formats.sharegpt(found.messages, tools, extra), formats.openai_chat(found.messages, tools)


def export(
    board: Leases,
    name: str,
    items: list[Item],
    *,
    sharegpt: Path | None,
    openai: Path | None,
    only: Which = "all",
) -> Exported:
    report = Exported()
    share_lines: list[str] = []
    openai_lines: list[str] = []
    for share, chat in records(board, name, items, only, report):
        share_lines.append(json.dumps(share, ensure_ascii=False))
        openai_lines.append(json.dumps(chat, ensure_ascii=False))
    for path, lines in ((sharegpt, share_lines), (openai, openai_lines)):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, "".join(line + "\n" for line in lines))
    return report
