"""The kanban board (loop 6): tasks with dependencies, leases with fencing tokens, a dispatcher and workers.
Two backends behind one interface: SQLite in state.db (one machine) and PostgreSQL (many machines)."""

from grove.kanban.model import STATUSES, Claim, LeaseLost, Task

__all__ = ["STATUSES", "Claim", "LeaseLost", "Task"]
