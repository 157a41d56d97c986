"""One move: locate the other agent's things, then skills, memory, MCP servers and sessions in turn, each through
grove's own path for it (the skill import pipeline and its scan, memory edits, the MCP config store). A dry run
(the default) works on scratch copies, so its report says what `--apply` will do, verdicts included."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from grove.moving_in.layouts import Layout, locate
from grove.moving_in.mcp_import import import_mcp
from grove.moving_in.memory_import import import_memory
from grove.moving_in.report import Report
from grove.moving_in.sessions_import import import_sessions
from grove.store.db import Database


def move_in(
    settings: Any,
    agent: str,
    path: Path | None = None,
    *,
    apply: bool = False,
    force: bool = False,
    sessions: bool = True,
    allow_flagged: bool = False,
    db: Database | None = None,
) -> Report:
    """Bring `agent`'s things into settings.home. Raises layouts.LayoutError when PATH is not that agent's home."""
    layout = locate(agent, path)
    report = Report(agent, str(layout.root), apply)
    home = Path(settings.home)
    own_db = db is None and apply
    if own_db:
        db = Database(settings.db_path)
    elif db is None and Path(settings.db_path).exists():
        db = Database(settings.db_path)  # read only what was imported before
        own_db = True
    try:
        _skills(layout, home / "skills", db if apply else None, report, apply, force, allow_flagged)
        from grove.config.memory import memory_config
        from grove.memory.files import MemoryFiles

        import_memory(MemoryFiles(home, memory_config(settings)), layout.memory, report, apply)
        for p, why in layout.skipped_files:
            report.add("file", str(p), "skipped", detail=why)
        from grove.config import read_config_file

        # config.yaml as it is on disk now (settings may have been loaded before it changed)
        servers = (read_config_file(home / "config.yaml").get("mcp") or {}).get("servers") or {}
        existing = set(servers) if isinstance(servers, dict) else set()
        import_mcp(layout.mcp, layout.mcp_skipped, report, apply, force, existing)
        if sessions:
            import_sessions(db, agent, layout.sessions_format, layout.sessions, report, apply)
        elif layout.sessions:
            report.add("session", f"{len(layout.sessions)} file(s)", "skipped", detail="--no-sessions")
    finally:
        if own_db and db is not None:
            db.close()
    return report


def _rel(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _skills(
    layout: Layout,
    root: Path,
    db: Database | None,
    report: Report,
    apply: bool,
    force: bool,
    allow_flagged: bool,
) -> None:
    """Every skills folder through grove.skills.importer (read, scan, validate, copy). A dry run imports into a
    scratch library holding empty folders named like the real one's skills, so name clashes come out the same."""
    from grove.skills.importer import import_with_summary

    target = root
    scratch: Path | None = None
    if not apply:
        scratch = Path(tempfile.mkdtemp(prefix="grove-movein-skills-"))
        target = scratch / "skills"
        target.mkdir()
        if root.is_dir():
            for e in os.scandir(root):
                if e.is_dir() and not e.name.startswith("."):
                    (target / e.name).mkdir()
    try:
        for folder in layout.skills:
            try:
                outcomes, _ = import_with_summary(
                    folder, target, db, on_conflict="replace" if force else "skip"
                )
            except FileNotFoundError as e:
                report.add("skill", str(folder), "skipped", detail=str(e))
                continue
            for o in outcomes:
                item = f"{o.original_name or o.name} ({_rel(Path(o.source), layout.root)})"
                if o.status == "imported":
                    converted = [w for w in o.warnings if w.startswith(("renamed", "it had no frontmatter"))]
                    action = "converted" if converted or o.original_name else "taken"
                    report.add("skill", item, action, f"skills/{o.name}", "; ".join(converted))
                else:
                    fix = f"; {o.fix}" if o.fix else ""
                    report.add("skill", item, "skipped", detail=f"{o.status}: {o.reason}{fix}"[:400])
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
