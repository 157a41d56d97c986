"""Tool schemas cached on disk: deriving them with pydantic costs ~25 ms of every start, yet they change only when
a tool's signature, its docstring, pydantic or grove's schema code changes, and all of those are in the key."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

from grove.atomic_files import atomic_write_text
from grove.tools import registry
from grove.tools.registry import Tool, ToolRegistry


def fingerprint(tool: Tool) -> str:
    params = [(n, repr(p.annotation), repr(p.default), p.description) for n, p in tool.params.items()]
    key = json.dumps([tool.name, tool.description, params], default=str)
    return hashlib.sha1(key.encode()).hexdigest()


def code_version() -> str:
    """A hash of pydantic's version file and of the module that derives and compacts the schemas (read, not
    imported: the point is not to load pydantic)."""
    spec = importlib.util.find_spec("pydantic")
    pydantic_dir = Path(spec.origin).parent if spec and spec.origin else None
    digest = hashlib.sha1(Path(registry.__file__).read_bytes())
    if pydantic_dir is not None and (pydantic_dir / "version.py").is_file():
        digest.update((pydantic_dir / "version.py").read_bytes())
    return digest.hexdigest()[:16]


def prime_schemas(tools: ToolRegistry, path: Path) -> None:
    """Give every tool its schema from the cache file; derive the missing ones and rewrite the file. A missing,
    broken or outdated file only costs the derivation."""
    version = code_version()
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    ok = isinstance(data, dict) and data.get("version") == version and isinstance(data.get("schemas"), dict)
    cached: dict = data["schemas"] if ok else {}
    missing = False
    for name in tools.names():
        tool = tools.get(name)
        assert tool is not None
        key = fingerprint(tool)
        schema = cached.get(key)
        if isinstance(schema, dict):
            tool.__dict__["schema"] = schema  # fills the cached_property
        else:
            cached[key] = tool.schema
            missing = True
    if missing:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps({"version": version, "schemas": cached}))
        except OSError:
            pass  # a read-only home still works, only slower
