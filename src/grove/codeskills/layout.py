"""The code skill folder: SKILL.md (contract under metadata) + scripts/skill.py (`solve`) + scripts/test_skill.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grove.codeskills.contract import Contract
from grove.skills.code_meta import ENTRY, KIND
from grove.skills.frontmatter import render_skill_md

CODE_FILE = "scripts/skill.py"
TEST_FILE = "scripts/test_skill.py"
CATEGORY = "code"


def contract_of(metadata: dict[str, Any]) -> dict[str, Any]:
    """The stored contract {"args": schema, "result": schema}; {} when absent or unreadable."""
    try:
        data = json.loads(str(metadata.get("grove.contract", "")))
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _example_args(contract: Contract) -> str:
    sample = {"string": "...", "integer": 1, "number": 1.0, "boolean": True, "array": [], "object": {}}
    args = {
        k: sample.get(str(v.get("type")), "...")
        for k, v in contract.args.get("properties", {}).items()
        if k in contract.args.get("required", [])
    }
    return json.dumps(args)


def render(
    name: str, description: str, contract: Contract, tests: list[str], keep: dict[str, Any] | None = None
) -> str:
    """The SKILL.md of a code skill: portable frontmatter, grove's fields under `metadata` (`keep`: others)."""
    meta = {
        **(keep or {}),
        "grove.kind": KIND,
        "grove.category": CATEGORY,
        "grove.entry": f"{CODE_FILE}:{ENTRY}",
        "grove.signature": contract.signature,
        "grove.contract": contract.to_json(),
    }
    body = (
        f"\n# {name}\n\n{description}\n\n"
        f"## Contract\n\n`{contract.signature}`\n\n"
        + (f"{contract.summary}\n\n" if contract.summary else "")
        + f"Arguments (JSON schema): `{json.dumps(contract.args)}`\n\n"
        f"Result (JSON schema): `{json.dumps(contract.result or {})}`\n\n"
        "## How to use\n\n"
        f'Call it with the `skill_run` tool: `skill_run(name="{name}", args={_example_args(contract)})`. '
        f"It runs `{ENTRY}` from `{CODE_FILE}` in the sandbox (no network; relative paths are the workspace) "
        'and returns its result as JSON. Outside grove: `python3 -c \'import sys; sys.path.insert(0, "scripts"); '
        f"from skill import {ENTRY}'`.\n\n"
        f"## Tests\n\n`{TEST_FILE}` ({len(tests)} test(s), all passing when stored): {', '.join(tests)}. "
        "A change to the code is kept only if they still pass.\n"
    )
    return render_skill_md({"name": name, "description": description, "metadata": meta}, body)


def write_folder(folder: Path, skill_md: str, code: str, tests: str) -> None:
    """Lay out a code skill folder (a scratch copy; the library is written only through SkillManager)."""
    (folder / "scripts").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_md, encoding="utf-8")
    (folder / CODE_FILE).write_text(code, encoding="utf-8")
    (folder / TEST_FILE).write_text(tests, encoding="utf-8")
