"""What a prompt is made of: one request's tokens by part (system, memory, skills index, project, tools, history,
tool results), from a cheap estimate scaled to the prompt tokens the provider reported, and cached vs fresh."""

from __future__ import annotations

import re
from typing import Any

from grove.lazy_regex import later
from grove.llm.estimate import estimate_tokens
from grove.llm.types import Message, ToolSchema, Usage

PARTS = ("system", "memory", "skills_index", "project", "tools", "history", "tool_results")
# where each assembled section of the system prompt starts (grove.agent.prompt puts them in this order)
_SECTIONS = [
    ("memory", later(r"^# Memory\n", re.M)),
    ("skills_index", later(r"^## Skills\n", re.M)),
    ("project", later(r"^Project instructions from ", re.M)),
    ("system", later(r"^Today is \d{4}-\d{2}-\d{2}\.", re.M)),
]


def _system_parts(text: str) -> dict[str, int]:
    marks = sorted((m.start(), name) for name, rx in _SECTIONS if (m := rx.search(text)))
    out: dict[str, int] = dict.fromkeys(("system", "memory", "skills_index", "project"), 0)
    starts = [(0, "system"), *marks]
    for (start, name), (end, _) in zip(starts, [*starts[1:], (len(text), "")], strict=True):
        if end > start:
            out[name] += estimate_tokens(text[start:end])
    return out


def compose(messages: list[Message], tools: list[ToolSchema], usage: Usage | None = None) -> dict[str, Any]:
    """The request's parts in estimated tokens, scaled so they add up to the reported prompt tokens when the
    provider reported them; `cached` and `fresh` as the provider counted them."""
    parts: dict[str, int] = dict.fromkeys(PARTS, 0)
    for i, m in enumerate(messages):
        content = m.get("content")
        if i == 0 and m.get("role") == "system":
            for name, n in _system_parts(str(content or "")).items():
                parts[name] += n
        elif m.get("role") == "tool":
            parts["tool_results"] += estimate_tokens(content or "")
        else:
            parts["history"] += estimate_tokens(
                {k: v for k, v in m.items() if k in ("content", "tool_calls")}
            )
    parts["tools"] = estimate_tokens(tools) if tools else 0
    estimated = sum(parts.values())
    reported = usage.prompt_tokens if usage is not None else 0
    if reported and estimated:
        scaled = {k: round(v * reported / estimated) for k, v in parts.items()}
        scaled["history"] += reported - sum(scaled.values())  # rounding: the parts add up exactly
        parts = scaled
    cached = min(usage.cached_tokens, reported) if usage is not None else 0
    total = reported or estimated
    return {
        "parts": parts,
        "prompt_tokens": total,
        "estimated": not reported,
        "cached": cached,
        "fresh": total - cached,
    }


def render(composition: dict[str, Any]) -> str:
    """A few lines for the terminal (chat's /context)."""
    total = composition["prompt_tokens"] or 1
    rows = [
        f"  {name.replace('_', ' '):13s} {n:>8,}  {100 * n / total:5.1f}%"
        for name, n in composition["parts"].items()
        if n
    ]
    how = "estimated" if composition["estimated"] else "as reported"
    head = f"last request: {composition['prompt_tokens']:,} prompt tokens ({how})"
    tail = f"  cached {composition['cached']:,} · fresh {composition['fresh']:,}"
    return "\n".join([head, *rows, tail])
