"""Providers from plugins (entry-point group grove.providers): the entry point's name is the spec prefix.

A plugin offers either a `providers_table.Provider` row or a factory `factory(spec, provider, settings,
long_lived=...) -> Model`. Built-in rows win a name clash: a plugin cannot take over `openai:`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from grove import providers_table
from grove.plugins import PROVIDERS, LoadedPlugin, load_group
from grove.providers_table import Provider


@dataclass(frozen=True)
class PluginProvider:
    plugin: LoadedPlugin
    row: Provider | None  # None when the plugin did not load or offers no row or factory
    error: str | None = None


def _row_of(plugin: LoadedPlugin) -> PluginProvider:
    if not plugin.ok:
        return PluginProvider(plugin, None, plugin.error)
    if providers_table.provider_named(plugin.name) is not None:
        return PluginProvider(plugin, None, f"'{plugin.name}' is a built-in provider; the plugin is not used")
    obj = plugin.obj
    if isinstance(obj, Provider):
        return PluginProvider(plugin, dataclasses.replace(obj, name=plugin.name))
    if callable(obj):
        row = Provider(
            plugin.name,
            api=plugin.name,  # no wire-format profile rules apply but the generic ones
            factory=plugin.value,  # the entry point's "module:attr" is the factory
            syntax=f"{plugin.name}:<model>",
            help=f"from the plugin {plugin.source}",
        )
        return PluginProvider(plugin, row)
    return PluginProvider(
        plugin, None, f"{plugin.value} is a {type(obj).__name__}, not a Provider row or a factory"
    )


def plugin_providers() -> list[PluginProvider]:
    """Every grove.providers plugin with its row or the reason it has none (imports the plugins)."""
    return [_row_of(p) for p in load_group(PROVIDERS)]


def plugin_provider(name: str) -> Provider | None:
    """The row of the plugin provider `name`; only that entry point's module is imported."""
    from grove.plugins.loader import list_group, load_entry

    for entry in list_group(PROVIDERS):
        if entry.name == name:
            return _row_of(load_entry(entry)).row
    return None


def provider_row(name: str) -> Provider | None:
    """A built-in row, else a plugin's (plugins are looked up only for names the table lacks)."""
    return providers_table.provider_named(name) or plugin_provider(name)


def describe() -> str:
    """The built-in providers' help lines, then the plugin providers that load."""
    lines = [providers_table.describe()]
    lines += [f"  {p.row.syntax}  {p.row.help}" for p in plugin_providers() if p.row is not None]
    return "\n".join(lines)
