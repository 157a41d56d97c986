"""Backends under test: every one this machine offers; the others are skipped with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.sandbox import detect_backend, make_scratch
from grove.sandbox.backend import landlock_info


def _backends() -> list[object]:
    detected = detect_backend()
    params: list[object] = []
    if detected.name == "bwrap":
        params.append("bwrap")
    else:
        params.append(
            pytest.param("bwrap", marks=pytest.mark.skip(reason=f"bwrap not usable: {detected.reason}"))
        )
    if landlock_info() is not None:  # tested even when bwrap is the default, so both stay honest
        params.append("landlock")
    else:
        params.append(
            pytest.param("landlock", marks=pytest.mark.skip(reason="no Landlock ABI, or not x86_64"))
        )
    params.append("rlimit")  # always available, and reported as no isolation
    return params


@pytest.fixture(params=_backends())
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_scratch(tmp_path)
