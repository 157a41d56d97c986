"""`grove plugins list`: every installed plugin per entry-point group, its package, and whether it loaded."""

from __future__ import annotations

import json
from dataclasses import dataclass

import typer

from grove.cli.common import fail

app = typer.Typer(
    help="Plugins: packages that add providers, tools, chat platforms, graders or mutation operators.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@dataclass(frozen=True)
class Row:
    group: str
    name: str
    package: str
    value: str
    ok: bool
    detail: str  # what it adds, or its error


def _rows(group: str) -> list[Row]:
    """Each plugin of `group` loaded and checked by the layer that uses it (a wrong shape is an error too)."""
    from grove.plugins import GRADERS, MUTATIONS, PROVIDERS, TOOLS, LoadedPlugin, load_group

    def row(p: LoadedPlugin, ok: bool, detail: str) -> Row:
        return Row(group, p.name, p.source, p.value, ok, detail)

    if group == PROVIDERS:
        from grove.llm.plugin_providers import plugin_providers

        return [
            row(c.plugin, c.row is not None, f"-m {c.row.syntax}" if c.row else c.error or "")
            for c in plugin_providers()
        ]
    if group == TOOLS:
        from grove.plugins import list_group
        from grove.tools.builtin import builtin_registry
        from grove.tools.plugin_tools import plugin_toolsets

        plugin_names = {e.name for e in list_group(TOOLS)}
        taken = [n for n, t in builtin_registry().toolsets.items() if n not in plugin_names for n in t]
        return [
            row(
                ts.plugin,
                ts.error is None,
                ts.error or f"toolset '{ts.plugin.name}': " + ", ".join(t.name for t in ts.tools),
            )
            for ts in plugin_toolsets(taken)
        ]
    if group in (GRADERS, MUTATIONS):
        from grove.evolve.adapter import OPERATORS
        from grove.evolve.graders import registered
        from grove.evolve.plugins import plugin_graders, plugin_mutations

        found = plugin_graders(registered()) if group == GRADERS else plugin_mutations(OPERATORS)
        return [row(c.plugin, c.fn is not None, c.error or "") for c in found]
    return [row(p, p.ok, p.error or "") for p in load_group(group)]


@app.command("list")
def list_(
    group: str | None = typer.Option(
        None, "--group", "-g", help="Only this group (grove.providers, grove.tools, grove.platforms, ...)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per plugin, one per line."),
) -> None:
    """List every plugin per group with its package and version, and whether it loaded (else its error)."""
    from grove.plugins import GROUPS

    groups = list(GROUPS)
    if group is not None:
        wanted = group if group.startswith("grove.") else f"grove.{group}"
        if wanted not in GROUPS:
            fail(f"unknown plugin group '{group}'; use one of: {', '.join(GROUPS)}", code=2)
        groups = [wanted]
    for g in groups:
        rows = _rows(g)
        if as_json:
            for r in rows:
                print(json.dumps(vars(r)))
            continue
        print(f"{g}: {len(rows) or 'none'}")
        for r in rows:
            status = "ok   " if r.ok else "ERROR"
            print(f"  {status} {r.name:<16} {r.package:<24} {r.detail}")
