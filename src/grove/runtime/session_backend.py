"""A session's backend: the one its Profile names (a kanban board's, a delegate's), else the settings'; recorded
with the session, so the dashboard shows where it ran (local, ssh:HOST, container:IMAGE)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from grove.tools.context import ToolContext, backend_of

if TYPE_CHECKING:
    from grove.backends.base import Backend
    from grove.store.db import Database


def attach(ctx: ToolContext, spec: str | None) -> Backend:
    """Point the session's tools at `spec` (None = the settings' `backends.use`); an unknown or malformed one
    raises BackendError before anything runs. The backend is opened lazily (no connection yet)."""
    from grove.backends.open import backends_config
    from grove.backends.spec import parse_spec

    if spec is not None and ctx.settings is not None:
        config = backends_config(ctx.settings)
        parse_spec(spec, config.named)
        # the session's own copy: other sessions of this process (serve, workers) keep theirs
        ctx.settings = replace(ctx.settings, backends=replace(config, use=spec))
    backend = backend_of(ctx)
    if ctx.store is not None and ctx.session_id:
        ctx.store.set_backend(ctx.session_id, shown(backend))
    return backend


def spec_of(ctx: ToolContext) -> str:
    """The backend spec a session's tools use (its children's tools use it too)."""
    if ctx.backend is not None:
        return ctx.backend.name
    backends = getattr(ctx.settings, "backends", None)
    return str(getattr(backends, "use", "local") or "local")


def shown(backend: Backend) -> str:
    """local, ssh:HOST (its workspace left out) or container:IMAGE."""
    spec = getattr(backend, "spec", None)
    if backend.kind == "ssh" and spec is not None:
        return f"ssh:{spec.host}"
    if backend.kind == "container" and spec is not None:
        return f"container:{spec.image}"
    return backend.kind


def where_ran(db: Database, session_id: str) -> str:
    """Where the session's tools acted; 'local' for sessions from before backends were recorded."""
    from grove.store.sessions import SessionStore

    return SessionStore(db).backend_of(session_id)
