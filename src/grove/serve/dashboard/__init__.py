"""The web dashboard of `grove serve`: server-rendered pages over grove's own services (sessions, skills, memory,
kanban, evolution runs, approvals, settings), behind a login with a client key. `build_router(state)`."""

from grove.serve.dashboard.router import build_router

__all__ = ["build_router"]
