"""Entry-point discovery and loading for grove's plugin groups; failures become data, never exceptions.

A leaf of the layers: it imports nothing from grove, so every layer may ask it for its group.
"""

from __future__ import annotations

import functools
import sys
import traceback
from dataclasses import dataclass
from typing import Any

PROVIDERS = "grove.providers"
TOOLS = "grove.tools"
PLATFORMS = "grove.platforms"
GRADERS = "grove.graders"
MUTATIONS = "grove.mutations"
GROUPS: tuple[str, ...] = (PROVIDERS, TOOLS, PLATFORMS, GRADERS, MUTATIONS)


@dataclass(frozen=True)
class PluginEntry:
    """One advertised entry point, read from metadata without importing anything."""

    group: str
    name: str  # the entry point's name: a provider's spec prefix, a toolset's name, a platform, ...
    value: str  # "module:attr"
    dist: str | None  # the distribution that declares it
    version: str | None


@dataclass(frozen=True)
class LoadedPlugin:
    """An entry point after loading: `obj` when it imported, else `error` says why not."""

    group: str
    name: str
    value: str
    dist: str | None
    version: str | None
    obj: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def source(self) -> str:
        """ "pkg 1.2" (or the entry point's value when no distribution is known), for messages."""
        return f"{self.dist} {self.version or ''}".strip() if self.dist else self.value


def list_group(group: str) -> list[PluginEntry]:
    """The entry points of `group`, sorted by name then distribution; imports none of them.

    The same (name, value) declared twice (a package on sys.path twice) is listed once. Read once per process
    and sys.path (scanning every installed distribution costs ~5 ms, and every session asks for its tools);
    a plugin installed while grove runs is seen after a restart.
    """
    return list(_scan(group, tuple(sys.path)))


def forget() -> None:
    """Read the entry points again on the next request (after installing a plugin in-process; tests)."""
    _grove_groups.cache_clear()


def _scan(group: str, path: tuple[str, ...]) -> tuple[PluginEntry, ...]:
    return _grove_groups(path).get(group, ())


@functools.lru_cache(maxsize=4)
def _grove_groups(path: tuple[str, ...]) -> dict[str, tuple[PluginEntry, ...]]:
    """Every grove group's entry points, in one pass over the installed distributions. Only a distribution whose
    entry_points.txt names a grove group is parsed (as importlib.metadata.entry_points would: the first of a name
    on sys.path wins): parsing all ~200 of a usual environment for every group cost more than the rest of a run's
    plugin work."""
    import importlib.metadata as md  # ~11 ms: paid only when a group is asked for

    seen_dists: set[str] = set()
    found: dict[str, list[PluginEntry]] = {}
    seen: set[tuple[str, str, str]] = set()
    for dist in md.distributions(path=list(path)):
        key = getattr(dist, "_normalized_name", None) or str(dist.metadata["Name"] or "")
        if key in seen_dists:
            continue
        seen_dists.add(key)
        text = dist.read_text("entry_points.txt")
        if not text or "[grove." not in text:
            continue
        name = version = None
        for ep in dist.entry_points:
            if not ep.group.startswith("grove.") or (ep.group, ep.name, ep.value) in seen:
                continue
            seen.add((ep.group, ep.name, ep.value))
            if name is None:
                try:
                    name, version = dist.metadata["Name"], dist.version
                except Exception:  # a malformed METADATA file: still list the entry point
                    name = version = None
            found.setdefault(ep.group, []).append(PluginEntry(ep.group, ep.name, ep.value, name, version))
    return {g: tuple(sorted(es, key=lambda e: (e.name, e.dist or ""))) for g, es in found.items()}


def _error_text(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


def load_entry(entry: PluginEntry) -> LoadedPlugin:
    """Import one entry point; any failure (even SystemExit raised by a plugin) is returned as its error."""
    import importlib.metadata as md

    try:
        obj = md.EntryPoint(entry.name, entry.value, entry.group).load()
    except BaseException as exc:  # a plugin's import must never take grove down, whatever it raises
        if isinstance(exc, KeyboardInterrupt):
            raise
        return LoadedPlugin(**vars(entry), error=_error_text(exc))
    return LoadedPlugin(**vars(entry), obj=obj)


def load_group(group: str) -> list[LoadedPlugin]:
    """Every plugin of `group`, loaded: `obj` set, or `error` saying why it could not load. Never raises."""
    try:
        entries = list_group(group)
    except Exception as exc:  # broken metadata on sys.path: no plugins, said once
        return [LoadedPlugin(group, "?", "?", None, None, error=f"reading entry points: {_error_text(exc)}")]
    return [load_entry(e) for e in entries]
