"""A plugin package written into a temporary sys.path entry: a module plus a .dist-info with entry points.

importlib.metadata finds it like an installed distribution, and nothing is installed into the shared environment.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grove.plugins.loader import forget

MakePlugin = Callable[..., Path]


@pytest.fixture
def make_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakePlugin]:
    """make_plugin(dist, version, entry_points={group: {name: "mod:attr"}}, modules={"mod": "source"})."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    added: list[str] = []

    def make(
        dist: str, version: str = "1.0", *, entry_points: dict[str, dict[str, str]], modules: dict[str, str]
    ) -> Path:
        for mod, source in modules.items():
            (root / f"{mod}.py").write_text(source, encoding="utf-8")
            added.append(mod)
        info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
        )
        lines = []
        for group, eps in entry_points.items():
            lines.append(f"[{group}]")
            lines += [f"{name} = {value}" for name, value in eps.items()]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        forget()
        return info

    yield make
    for mod in added:  # the next test may write a module of the same name with other contents
        sys.modules.pop(mod, None)
