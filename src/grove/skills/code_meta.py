"""What a skill's metadata says about it being a code skill (grove.kind, grove.signature): read by the skills
index and search without loading the code-skill machinery."""

from __future__ import annotations

from typing import Any

KIND = "code"
ENTRY = "solve"  # the function a code skill's scripts/skill.py defines


def is_code_skill(metadata: dict[str, Any]) -> bool:
    return str(metadata.get("grove.kind", "")) == KIND


def signature_of(metadata: dict[str, Any]) -> str:
    return str(metadata.get("grove.signature", ""))


def index_signature(metadata: dict[str, Any]) -> str:
    """The call shape for the skills index, e.g. "(values: list[float], window: int = 7) -> list[float]"; ''
    for skills that are not code skills. Depends only on the file, so the index stays byte-stable."""
    sig = signature_of(metadata) if is_code_skill(metadata) else ""
    return sig.removeprefix(ENTRY) if sig.startswith(ENTRY + "(") else sig
