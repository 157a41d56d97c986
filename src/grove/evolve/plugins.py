"""Graders and mutation operators from plugins (entry-point groups grove.graders and grove.mutations).

A grader plugin is a factory `factory(arg: str, ctx: GraderContext) -> Grader`, named by its entry point (a spec
`name:arg` reaches it); a mutation plugin is `mutate(key, section, records, room) -> str | None` (key: the section's
key; records: the reflective records of the batch; room: bytes the skill body may still grow; None: no change).
Built-in names win; a plugin is code the user installed on purpose, so a dataset naming it runs nothing new.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grove.plugins import GRADERS, MUTATIONS, LoadedPlugin, load_group

Mutation = Callable[[str, str, Sequence[Mapping[str, Any]], int], "str | None"]


@dataclass(frozen=True)
class PluginCallable:
    plugin: LoadedPlugin
    fn: Callable[..., Any] | None
    error: str | None = None


def _callables(group: str, builtin: set[str]) -> list[PluginCallable]:
    out: list[PluginCallable] = []
    for p in load_group(group):
        if not p.ok:
            out.append(PluginCallable(p, None, p.error))
        elif p.name in builtin:
            out.append(PluginCallable(p, None, f"'{p.name}' is built in; the plugin is not used"))
        elif not callable(p.obj):
            out.append(PluginCallable(p, None, f"{p.value} is a {type(p.obj).__name__}, not a function"))
        else:
            out.append(PluginCallable(p, p.obj))
    return out


def plugin_graders(builtin: Iterable[str]) -> list[PluginCallable]:
    """The grader plugins; `builtin`: the registered grader names, which win a clash."""
    return _callables(GRADERS, set(builtin))


def plugin_mutations(builtin: Iterable[str]) -> list[PluginCallable]:
    """The mutation plugins; `builtin`: the built-in operator names, which win a clash."""
    return _callables(MUTATIONS, set(builtin))
