"""The one-pass scan of grove's groups lists what importlib.metadata.entry_points lists for each group."""

from __future__ import annotations

import importlib.metadata as md
import sys
from pathlib import Path

import pytest

from grove.plugins.loader import GROUPS, forget, list_group


def _dist(root: Path, name: str, entry_points: str) -> None:
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


@pytest.mark.parametrize("group", [*GROUPS, "grove.other"])
def test_each_group_lists_what_importlib_lists(
    group: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _dist(
        tmp_path,
        "alpha",
        f"[console_scripts]\nalpha = alpha:main\n\n[{group}]\none = alpha.one:x\ntwo = alpha.two:y\n",
    )
    _dist(tmp_path, "beta", "[console_scripts]\nbeta = beta:main\n")
    _dist(tmp_path, "gamma", f"[{group}]\nthree = gamma:z\n[grove.unrelated]\nfour = gamma:w\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    forget()
    try:
        listed = {(e.name, e.value, e.dist) for e in list_group(group)}
        expected = {
            (ep.name, ep.value, ep.dist.metadata["Name"] if ep.dist else None)
            for ep in md.entry_points(group=group)
        }
    finally:
        forget()
    assert listed == expected
    assert {("one", "alpha.one:x", "alpha"), ("three", "gamma:z", "gamma")} <= listed
