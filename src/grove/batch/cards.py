"""A batch's cards on the board: one per dataset line, found again by its idempotency key (so a rerun adds
nothing twice), claimed only by the batch's dispatcher (its assignee), and labelled by a comment."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from grove.batch.dataset import Item
from grove.batch.verify import Label
from grove.kanban.leases import Leases
from grove.kanban.model import Task

AUTHOR = "grove-batch"
LABEL = "label: "


def assignee(name: str) -> str:
    return f"batch:{name}"


def key(name: str, item_id: str) -> str:
    return f"batch:{name}:{item_id}"


def title(item: Item) -> str:
    first = item.prompt.strip().splitlines()[0]
    return first if len(first) <= 100 else first[:99] + "…"


@dataclass
class Card:
    item: Item
    task: Task
    workspace: Path
    label: Label | None


def label_of(board: Leases, task_id: int) -> Label | None:
    """The card's label comment (one per card: see write_label)."""
    for c in board.comments(task_id):
        if c.author == AUTHOR and c.body.startswith(LABEL):
            return Label(**json.loads(c.body[len(LABEL) :]))
    return None


def write_label(board: Leases, task_id: int, label: Label) -> bool:
    """The card's label, unless another batch process labelled it first (False)."""
    return board.comment_once(task_id, AUTHOR, LABEL + json.dumps(label.as_dict(), ensure_ascii=False), LABEL)


def find(board: Leases, name: str, items: list[Item]) -> dict[str, Task]:
    """The batch's cards that exist, by dataset id."""
    wanted = {key(name, i.id): i.id for i in items}
    return {wanted[t.idempotency_key]: t for t in board.tasks() if t.idempotency_key in wanted}
