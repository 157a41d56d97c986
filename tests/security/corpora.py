"""Loading the security corpora (data files next to this module), shared by tests and benchmarks/security_corpora.py."""

from __future__ import annotations

import json
from pathlib import Path

CORPORA = Path(__file__).parent / "corpora"


def lines(name: str) -> list[str]:
    """One item per line; '#' starts a comment line; a literal \\n stands for a newline."""
    text = (CORPORA / name).read_text(encoding="utf-8")
    return [ln.replace("\\n", "\n") for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def jsonl(name: str) -> list[dict[str, str]]:
    return [json.loads(ln) for ln in (CORPORA / name).read_text(encoding="utf-8").splitlines() if ln.strip()]
