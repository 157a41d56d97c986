"""Fixtures for the skills tests (GROVE_HOME and settings come from tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(grove_home: Path) -> Path:
    grove_home.mkdir(parents=True, exist_ok=True)
    return grove_home


@pytest.fixture
def skills_root(home: Path) -> Path:
    root = home / "skills"
    root.mkdir()
    return root
