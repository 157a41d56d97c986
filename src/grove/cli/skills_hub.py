"""`grove skills install | update | uninstall | outdated`: the skills hub's commands (added to `grove skills`)."""

from __future__ import annotations

from typing import Any

import typer

from grove.cli.common import fail, load


def _context() -> tuple[Any, Any, Any]:
    from grove.skills.discover import home_skills_dir
    from grove.store.db import Database

    settings = load()
    return settings, home_skills_dir(settings.home), Database(settings.db_path)


def install(
    source: str = typer.Argument(
        ...,
        help="A folder, a git repository (git:URL, URL.git or a local repo; @ref, #subpath), a .tar.gz "
        "(path or URL), or a site's /.well-known/skills/index.json URL.",
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Replace library skills of the same name (old kept in history). Never overrides a refusal.",
    ),
    allow_flagged: bool = typer.Option(
        False,
        "--allow-flagged",
        help="Also install skills the scan flags as caution; dangerous ones never install.",
    ),
) -> None:
    """Fetch SOURCE into a quarantine folder, scan and validate every skill in it, then install them."""
    from grove.skills_hub.hub import HubError
    from grove.skills_hub.hub import install as run

    settings, root, db = _context()
    try:
        result = run(settings.home, root, db, source, force=force, allow_flagged=allow_flagged)
    except HubError as e:
        fail(str(e), code=2 if "does not exist" in str(e) or "give a SOURCE" in str(e) else 1)
    where = result.source.spec() + (f" (commit {result.commit[:12]})" if result.commit else "")
    print(f"source: {where}")
    for note in result.notes:
        print(f"note: {note}")
    for o in result.outcomes:
        print(f"{o.status:<11} {o.name}" + (f": {o.reason}" if o.reason else ""))
        for w in o.warnings:
            print(f"            warning: {w}")
        if o.fix and o.status != "imported":
            print(f"            way forward: {o.fix}")
    installed = sum(o.status == "imported" for o in result.outcomes)
    print(
        f"installed {installed} of {len(result.outcomes)} skill(s); `grove skills outdated` checks for news"
    )
    if not installed:
        raise typer.Exit(1)


def update(
    name: str | None = typer.Argument(None, help="A hub-installed skill (default: all of them)."),
    allow_flagged: bool = typer.Option(
        False, "--allow-flagged", help="Accept a new version the scan flags as caution; dangerous ones never."
    ),
) -> None:
    """Re-fetch hub-installed skills; show what changed, re-scan, and install the new version (old kept in history)."""
    from grove.skills_hub.hub import HubError
    from grove.skills_hub.hub import update as run

    settings, root, db = _context()
    try:
        results = run(settings.home, root, db, name, allow_flagged=allow_flagged)
    except HubError as e:
        fail(str(e), code=2)
    if not results:
        print("no skills installed from the hub; `grove skills install SOURCE` adds some")
    failed = False
    for r in results:
        print(f"{r.status:<11} {r.name}" + (f": {r.detail}" if r.detail else ""))
        if r.diff:
            print(r.diff, end="")
        if r.version is not None:
            print(f"            the previous version is kept: `grove skills rollback {r.name} {r.version}`")
        failed = failed or r.status not in ("updated", "up to date")
    if failed:
        raise typer.Exit(1)


def uninstall(name: str = typer.Argument(..., help="A hub-installed skill.")) -> None:
    """Remove a hub-installed skill (archived, so `grove skills restore NAME` brings it back)."""
    from grove.skills_hub.hub import HubError
    from grove.skills_hub.hub import uninstall as run

    _settings, root, db = _context()
    try:
        print(run(root, db, name))
    except HubError as e:
        fail(str(e), code=2 if "not installed" in str(e) else 1)


def outdated(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Compare each hub-installed skill with its source now (git: the commit; otherwise the content hash)."""
    import json
    from dataclasses import asdict

    from grove.skills_hub.hub import outdated as run

    settings, _root, db = _context()
    rows = run(settings.home, db)
    if as_json:
        print(json.dumps([asdict(r) for r in rows], ensure_ascii=False))
        return
    if not rows:
        print("no skills installed from the hub")
        return
    for r in rows:
        print(f"{r.name:<28} {r.status:<11} installed {r.installed:<12} now {r.current:<12} {r.source}")
    news = sum(r.status == "outdated" for r in rows)
    print(f"{news} outdated" + ("; `grove skills update` fetches them" if news else ""))


def register(app: typer.Typer) -> None:
    app.command("install")(install)
    app.command("update")(update)
    app.command("uninstall")(uninstall)
    app.command("outdated")(outdated)
