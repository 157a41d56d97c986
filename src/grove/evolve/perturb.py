"""Perturbed variants of an item, so robustness measures something accuracy does not: the dataset's paraphrases
first, then generated ones up to the number asked (deterministic). `reworded` wraps the request in small talk;
`distractors` adds stale copies of the workspace files (under old/, every digit shifted) and a notes file, or,
without a workspace, an irrelevant sentence before the request."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grove.evolve.dataset import Example

GENERATED = ("reworded", "distractors")


@dataclass(frozen=True)
class Variant:
    label: str  # "original", "paraphrase 1", "reworded", "distractors"
    prompt: str
    files: dict[str, str] | None = field(default=None)  # the workspace to build; None: no workspace


def _shift_digits(text: str) -> str:
    return re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), text)


def perturb(example: Example, kind: str) -> Variant:
    files = dict(example.workspace) if example.workspace is not None else None
    if kind == "reworded":
        return Variant(
            kind, f"Hi! Quick request, when you have a moment: {example.input} Thanks a lot.", files
        )
    if kind == "distractors":
        if files is None:
            return Variant(kind, f"(Unrelated: the office is closed on Friday.) {example.input}", None)
        stale = {f"old/{path}": _shift_digits(text) for path, text in files.items()}
        notes = {"NOTES.md": "Scratch notes from last quarter; the files under old/ are outdated copies.\n"}
        return Variant(kind, example.input, files | stale | notes)
    raise ValueError(f"unknown perturbation {kind!r}: use {', '.join(GENERATED)}")


def variants(example: Example, perturbed: int) -> list[Variant]:
    """The original, then `perturbed` variants: the item's own paraphrases first, then generated ones."""
    files = dict(example.workspace) if example.workspace is not None else None
    out = [Variant("original", example.input, files)]
    for i, text in enumerate(example.paraphrases[: max(0, perturbed)]):
        out.append(Variant(f"paraphrase {i + 1}", text, files))
    for kind in GENERATED[: max(0, perturbed - (len(out) - 1))]:
        out.append(perturb(example, kind))
    return out
