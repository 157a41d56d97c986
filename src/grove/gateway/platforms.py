"""Finding a platform's adapter class among the `grove.platforms` entry points (a new platform is one package)."""

from __future__ import annotations

from typing import Any

from grove.gateway.adapter import GatewayError, PlatformAdapter


def available() -> dict[str, str]:
    """Every advertised platform -> where it comes from, without importing any of them."""
    from grove.plugins import PLATFORMS, list_group

    return {e.name: e.dist or e.value for e in list_group(PLATFORMS)}


def adapter_class(platform: str) -> type[PlatformAdapter]:
    """The adapter class registered as `platform`; a clear error when it is unknown or cannot load."""
    from grove.plugins import PLATFORMS, list_group
    from grove.plugins.loader import load_entry

    entries = [e for e in list_group(PLATFORMS) if e.name == platform]
    if not entries:
        names = ", ".join(sorted(available())) or "none"
        raise GatewayError(f"unknown platform '{platform}' (installed: {names})")
    loaded = load_entry(entries[0])
    if not loaded.ok:
        hint = (
            " (pip install 'grove-agent[gateways]')" if "ModuleNotFoundError" in (loaded.error or "") else ""
        )
        raise GatewayError(f"platform '{platform}' cannot load: {loaded.error}{hint}")
    obj: Any = loaded.obj
    if not (isinstance(obj, type) and issubclass(obj, PlatformAdapter)):
        raise GatewayError(f"platform '{platform}' ({loaded.source}) is not a PlatformAdapter subclass")
    return obj
