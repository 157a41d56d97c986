"""Helpers for the skills tests: SKILL.md text and skill folders."""

from __future__ import annotations

from pathlib import Path


def skill_text(
    name: str, description: str = "Does a thing. Use when testing.", body: str = "# Steps\n\n1. Go.\n"
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}"


def write_skill(root: Path, name: str, text: str | None = None, folder: str | None = None) -> Path:
    d = root / (folder or name)
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(text if text is not None else skill_text(name), encoding="utf-8")
    return d
