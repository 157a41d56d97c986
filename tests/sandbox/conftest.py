"""Backends under test: every one this machine offers; the others are skipped with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.sandbox import detect_backend, make_scratch


def _backends() -> list[object]:
    detected = detect_backend()
    params: list[object] = []
    for name in ("bwrap", "landlock"):
        if detected.name == name:
            params.append(name)
        else:
            params.append(
                pytest.param(name, marks=pytest.mark.skip(reason=f"{name} not active: {detected.reason}"))
            )
    params.append("rlimit")  # always available, and reported as no isolation
    return params


@pytest.fixture(params=_backends())
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_scratch(tmp_path)
