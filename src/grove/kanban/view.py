"""The board as a rich table: one column per status (archived left out), tasks by priority."""

from __future__ import annotations

from rich.table import Table

from grove.kanban.model import STATUSES, Task


def board_table(tasks: list[Task]) -> Table:
    columns = [s for s in STATUSES if s != "archived"]
    table = Table(title="kanban", expand=True)
    by_status: dict[str, list[Task]] = {s: [] for s in columns}
    for t in tasks:
        if t.status in by_status:
            by_status[t.status].append(t)
    for s in columns:
        table.add_column(f"{s} ({len(by_status[s])})", overflow="fold")
        by_status[s].sort(key=lambda t: (-t.priority, t.id))
    for i in range(max((len(v) for v in by_status.values()), default=0)):
        table.add_row(*(f"#{v[i].id} {v[i].title}" if i < len(v) else "" for v in by_status.values()))
    return table
