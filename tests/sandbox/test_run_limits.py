"""Per-run limits are reported honestly: what this machine cannot enforce is listed, and no run group is left over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grove.sandbox import Limits, cgroups, run


def test_unenforced_caps_are_listed_in_the_result(backend: str, workspace: Path) -> None:
    r = run(["/bin/true"], workspace, backend=backend)
    why = cgroups.unavailable_reason()
    if why is None:
        assert r.unenforced == []
    else:
        assert any("total memory and process caps" in u for u in r.unenforced), r.unenforced


def test_no_run_group_is_left_behind(backend: str, workspace: Path) -> None:
    if cgroups.unavailable_reason():
        pytest.skip(f"no run cgroups here: {cgroups.unavailable_reason()}")
    layout = cgroups._layout()
    assert not isinstance(layout, str)
    mine = f"grove-{os.getpid()}-*"  # other grove processes on this machine may be running commands too
    before = {p.name for parent in (layout.memory, layout.pids) for p in parent.glob(mine)}
    run(["/bin/sh", "-c", "setsid sleep 30 & echo started"], workspace, Limits(timeout=5), backend=backend)
    after = {p.name for parent in (layout.memory, layout.pids) for p in parent.glob(mine)}
    assert after <= before


def test_groups_of_dead_grove_processes_are_swept() -> None:
    if cgroups.unavailable_reason():
        pytest.skip(f"no run cgroups here: {cgroups.unavailable_reason()}")
    layout = cgroups._layout()
    assert not isinstance(layout, str)
    stale = layout.memory / "grove-999999999-0"  # above pid_max: that grove process cannot be alive
    stale.mkdir()
    try:
        cgroups._sweep(layout)
        assert not stale.exists()
    finally:
        if stale.exists():
            stale.rmdir()


def test_limits_refuse_nonsense() -> None:
    for name in ("disk_mb", "total_memory_mb", "total_processes"):
        with pytest.raises(ValueError, match=name):
            Limits(**{name: 0})  # type: ignore[arg-type]
