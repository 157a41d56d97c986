"""What learning adds to every call: schema tokens of the `memory` and `session_search` tools, and the frozen memory
block with both files filled to their default limits (cl100k, benchmarks/tokens.py).

Run: python benchmarks/learning/fixed_cost.py   (one line of key=value figures)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grove.config import Settings
from grove.memory.files import MemoryFiles, MemoryOp
from grove.memory.prompt import memory_prompt_block
from grove.tools import memory, sessions
from tokens import count_tokens

NOTES = [
    "The repo uses uv for installs and `uv run pytest -q` for tests; never pip install into the system Python.",
    "CI runs on GitHub Actions; the lint job is `ruff check` and `ruff format --check` with line length 110.",
    "Deploys go through `make deploy ENV=staging` first; production needs the release tag pushed.",
    "The staging database is PostgreSQL 16 on db.staging.internal; migrations live in migrations/ and are numbered.",
]
PREFS = [
    "Prefers short answers with the command first, explanation after.",
    "Works in UTC; writes dates as YYYY-MM-DD.",
    "Wants British spelling in docs.",
]


def fill(files: MemoryFiles, target: str, entries: list[str]) -> None:
    i = 0
    while True:
        text = f"{entries[i % len(entries)]} ({i})"
        try:
            files.apply([MemoryOp(action="add", target=target, content=text)])  # type: ignore[arg-type]
        except Exception:
            return
        i += 1


def main() -> int:
    home = Path(tempfile.mkdtemp(prefix="grove-fixed-cost-"))
    settings = Settings(home=home)
    files = MemoryFiles(home)
    fill(files, "memory", NOTES)
    fill(files, "user", PREFS)
    block = memory_prompt_block(settings)
    figures = {
        "memory_tool_schema_tokens": count_tokens(json.dumps(memory.tools()[0].schema)),
        "session_search_schema_tokens": count_tokens(json.dumps(sessions.tools()[0].schema)),
        "memory_block_full_tokens": count_tokens(block),
        "memory_block_full_chars": len(block),
        "memory_fill": f"{files.fill('memory').ratio:.2f}",
        "user_fill": f"{files.fill('user').ratio:.2f}",
    }
    print(" ".join(f"{k}={v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
