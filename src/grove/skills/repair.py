"""Making an imported SKILL.md valid by editing lines, never re-serialising its YAML: name, quoting, metadata."""

from __future__ import annotations

import json
import re

import yaml

from grove.skills.frontmatter import (
    MAX_NAME,
    SkillFormatError,
    parse_skill_md,
    quote_colon_values,
    safe_load,
    split_frontmatter,
)

_NAME_LINE = re.compile(r"^name:.*$", re.MULTILINE)


def normalise_name(name: str) -> str:
    """'My_Skill.v2' -> 'my-skill-v2': the closest name the standard allows ('' if nothing is left)."""
    out = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return out[:MAX_NAME].rstrip("-")


def _with_metadata(yaml_text: str, entries: dict[str, str]) -> str | None:
    """Add `entries` under `metadata:` by inserting lines (the rest of the YAML stays as written); None if unsure."""
    lines = yaml_text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    meta_at = next((i for i, ln in enumerate(lines) if re.match(r"^metadata:\s*$", ln)), None)
    if meta_at is None and any(ln.startswith("metadata:") for ln in lines):
        return None  # a flow mapping or a scalar: editing it by hand could break it
    if meta_at is None:
        return "".join(lines) + "metadata:\n" + "".join(f"  {k}: {v}\n" for k, v in entries.items())
    nxt = lines[meta_at + 1] if meta_at + 1 < len(lines) else "  "
    indent = nxt[: len(nxt) - len(nxt.lstrip())] or "  "
    lines[meta_at + 1 : meta_at + 1] = [f"{indent}{k}: {v}\n" for k, v in entries.items()]
    return "".join(lines)


def repair(
    text: str, name: str, category: str | None, extra: dict[str, str] | None = None
) -> tuple[str, list[str]]:
    """Make an imported SKILL.md as valid as can be done safely, editing lines, never re-serialising the YAML:
    quote `key: value: with colon` lines, fix the name, record the category, that it was imported, and `extra`
    metadata (where it came from)."""
    notes: list[str] = []
    yaml_text, body = split_frontmatter(text)
    try:
        data = safe_load(yaml_text)
    except yaml.YAMLError:
        yaml_text = quote_colon_values(yaml_text)
        data = safe_load(yaml_text)  # parse_skill_md succeeded with exactly this retry
        notes.append("quoted values containing ': ' so the frontmatter is valid YAML")
    data = data if isinstance(data, dict) else {}
    if data.get("name") != name:
        if "name" in data:
            notes.append(
                f"renamed {data['name']!r} to {name!r} (the standard allows a-z, 0-9 and single hyphens)"
            )
            yaml_text = _NAME_LINE.sub(f"name: {name}", yaml_text, count=1)
        else:
            notes.append(f"added 'name: {name}' (it had none)")
            yaml_text = f"name: {name}\n" + yaml_text
    raw_meta = data.get("metadata")
    meta = raw_meta if isinstance(raw_meta, dict) else {}
    entries = {"grove.created_by": "import"} if "grove.created_by" not in meta else {}
    if category and not any(k in meta for k in ("grove.category", "category")) and "category" not in data:
        entries["grove.category"] = category
    for key, value in (extra or {}).items():
        if key not in meta:
            entries[key] = json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML scalar
    if entries:
        edited = _with_metadata(yaml_text, entries)
        if edited is None:
            notes.append("metadata is not a block mapping; grove's fields were not added")
        else:
            yaml_text = edited
    new_text = f"---\n{yaml_text}---\n{body}"
    try:
        parse_skill_md(new_text, name)
    except SkillFormatError:
        return text, ["could not repair the frontmatter safely; imported as it was"]
    return new_text, notes
