"""Deterministic mutation operators that need no model: add failing items as worked examples, drop a section,
shorten a section. Each maps one section's text (plus the failing records) to a new text, or None if not applicable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

Record = Mapping[str, Any]
_PAREN = re.compile(r"\s*\([^()\n]{0,200}\)")
_SOFT = re.compile(r"^\s*[-*]?\s*(note|tip|e\.g\.|for example|remember)\b", re.IGNORECASE)


def _expected_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def failing(records: Sequence[Record]) -> list[Record]:
    return [r for r in records if float(r.get("score", 0.0)) < 1.0]


def add_worked_examples(
    text: str, records: Sequence[Record], max_added_bytes: int, limit: int = 2
) -> str | None:
    """Append up to `limit` failing items with their expected answers, within a byte budget."""
    if max_added_bytes <= 0:
        return None
    added = ""
    for r in failing(records):
        line = f"- Example: {' '.join(str(r['Inputs']).split())} -> {_expected_text(r['Expected'])}\n"
        if line.strip() in text or line in added:
            continue
        if len((added + line).encode()) > max_added_bytes:
            continue  # a shorter failing item may still fit
        added += line
        if added.count("\n") >= limit:
            break
    if not added:
        return None
    base = text if text.endswith("\n") or not text else text + "\n"
    return base + added


def drop_section(key: str, text: str) -> str | None:
    """Ablation: remove a whole `## ` section (never the preamble)."""
    return "" if text and key.split(" ", 1)[1].startswith("## ") else None


def shorten_section(text: str) -> str | None:
    """Remove parentheticals, soft lines (notes, tips) and repeated blank lines; None when there is none of them
    (a section of plain rules is left whole: cutting a rule is the drop operator's job, and is measured as such)."""
    lines = text.splitlines(keepends=True)
    if len(lines) <= 1:
        return None
    head, body = lines[0], lines[1:]
    out: list[str] = []
    for line in body:
        if _SOFT.match(line):
            continue
        line = _PAREN.sub("", line)
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    if out == body:
        return None
    new = head + "".join(out)
    return new if new != text else None
