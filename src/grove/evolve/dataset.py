"""Evaluation datasets: JSONL items (input, expected, grader, paraphrases, family, workspace) and family-wise
splits. `workspace` maps relative paths to file contents: a fresh folder holding them is built for every run."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Example:
    id: str
    input: str
    expected: Any
    grader: str | None = None  # a grader spec (see graders.py); None = the dataset's default
    paraphrases: tuple[str, ...] = ()
    family: str = ""  # items of one family (and their paraphrases) never cross splits
    # files of the item's workspace (path -> text); None: no workspace
    workspace: dict[str, str] | None = None

    def prompts(self, k: int) -> list[str]:
        """The input and up to k-1 paraphrases (k<=0 means all)."""
        every = [self.input, *self.paraphrases]
        return every if k <= 0 else every[: max(1, k)]

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["paraphrases"] = list(self.paraphrases)
        if self.workspace is None:
            d.pop("workspace")
        return d


@dataclass
class Splits:
    train: list[Example]
    val: list[Example]
    test: list[Example]
    seed: int = 0
    fractions: tuple[float, float, float] = (0.4, 0.2, 0.4)
    meta: dict[str, Any] = field(default_factory=dict)

    def sizes(self) -> dict[str, int]:
        return {"train": len(self.train), "val": len(self.val), "test": len(self.test)}


def example_from(obj: dict[str, Any], index: int) -> Example:
    if "input" not in obj or "expected" not in obj:
        raise ValueError(f"dataset line {index + 1}: each item needs 'input' and 'expected'")
    ident = str(obj.get("id", index))
    files = obj.get("workspace")
    if files is not None and not (
        isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
    ):
        raise ValueError(f"dataset line {index + 1}: 'workspace' must map relative paths to file texts")
    for rel in files or {}:
        if rel.startswith(("/", "~")) or ".." in rel.split("/"):
            raise ValueError(
                f"dataset line {index + 1}: workspace path {rel!r} must stay inside the workspace"
            )
    return Example(
        id=ident,
        input=str(obj["input"]),
        expected=obj["expected"],
        grader=obj.get("grader"),
        paraphrases=tuple(str(p) for p in obj.get("paraphrases") or ()),
        family=str(obj.get("family") or ident),
        workspace=files,
    )


def load_jsonl(path: str | Path) -> list[Example]:
    out: list[Example] = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
        if line.strip():
            out.append(example_from(json.loads(line), i))
    ids = [e.id for e in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: item ids must be unique")
    return out


def write_jsonl(path: str | Path, examples: list[Example]) -> None:
    Path(path).write_text("".join(json.dumps(e.as_dict()) + "\n" for e in examples), encoding="utf-8")


def file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def split_by_family(
    examples: list[Example], seed: int = 0, fractions: tuple[float, float, float] = (0.4, 0.2, 0.4)
) -> Splits:
    """Shuffle families with a fixed seed and deal them into train/val/test by the given fractions."""
    families = sorted({e.family for e in examples})
    random.Random(seed).shuffle(families)
    total = sum(fractions)
    n = len(families)
    n_train = round(n * fractions[0] / total)
    n_val = round(n * fractions[1] / total)
    if n >= 3:
        n_train, n_val = max(1, n_train), max(1, n_val)
        n_val = min(n_val, n - n_train - 1)
    where = {f: 0 if i < n_train else 1 if i < n_train + n_val else 2 for i, f in enumerate(families)}
    parts: list[list[Example]] = [[], [], []]
    for e in examples:
        parts[where[e.family]].append(e)
    return Splits(parts[0], parts[1], parts[2], seed=seed, fractions=fractions)
