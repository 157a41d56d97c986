"""Cron tests keep job workspaces under the test's tmp_path (not ~/grove-cron)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def cron_workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cron-workspaces"
    monkeypatch.setenv("GROVE_CRON_WORKSPACES", str(root))
    return root
