"""A batch dataset: one JSON object a line (`id`, `prompt`, optional `verifier` and `files`), checked whole before
anything runs, so a typo on line 900 fails at once with its line number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from grove.errors import GroveError
from grove.learning.checks import Check


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9._-]+$")]
    prompt: Annotated[str, Field(min_length=1)]
    verifier: list[Check] = Field(default_factory=list)  # all must pass; none: labelled by the outcome alone
    files: dict[str, str] = Field(default_factory=dict)  # written into the workspace before the task starts

    @model_validator(mode="before")
    @classmethod
    def _one_or_many(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("verifier"), dict):
            data = {**data, "verifier": [data["verifier"]]}
        return data

    @model_validator(mode="after")
    def _relative_files(self) -> Item:
        for name in self.files:
            parts = Path(name).parts
            if not name or Path(name).is_absolute() or ".." in parts:
                raise ValueError(f"files: {name!r} must be a relative path inside the workspace")
        return self


def _short(e: ValidationError) -> str:
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where + ': ' if where else ''}{first['msg']}"


def load_dataset(path: Path) -> list[Item]:
    """Every line of the file as an Item (blank lines skipped); ids must be unique."""
    if not path.is_file():
        raise GroveError(f"no dataset at {path}: give a JSONL file, one task a line")
    items: list[Item] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = Item.model_validate(json.loads(line))
        except json.JSONDecodeError as e:
            raise GroveError(f"{path}:{n}: not JSON ({e.msg}); each line is one object") from e
        except ValidationError as e:
            raise GroveError(
                f'{path}:{n}: {_short(e)} (a line is {{"id": ..., "prompt": ..., "verifier": ...}})'
            ) from e
        if item.id in seen:
            raise GroveError(
                f"{path}:{n}: id {item.id!r} is also on line {seen[item.id]}; ids must be unique"
            )
        seen[item.id] = n
        items.append(item)
    if not items:
        raise GroveError(f"{path} holds no tasks")
    return items
