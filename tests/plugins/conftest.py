"""Fixtures of the plugin tests: `make_plugin` writes a plugin distribution onto a temporary sys.path entry."""

from __future__ import annotations

from tests.plugins.fakedist import make_plugin

__all__ = ["make_plugin"]
