"""The dashboard shows where each session's tools acted: the sessions list and a session's page."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")

from tests.serve.dashboard.conftest import browser_client, dash, dash_key, logged_in, seeded  # noqa: F401

from grove.config import Settings
from grove.store.sessions import SessionStore


def test_sessions_show_where_they_ran(settings: Settings, seeded: dict[str, str], logged_in: Any) -> None:  # noqa: F811
    sid = seeded["session"]
    page = logged_in.get(f"/sessions/{sid}").text
    assert "ran on local" in page  # nothing recorded (an older session): this machine
    store = SessionStore.open(settings.db_path)
    store.set_backend(sid, "ssh:build.example")
    assert "ran on ssh:build.example" in logged_in.get(f"/sessions/{sid}").text
    assert "<td>ssh:build.example</td>" in logged_in.get("/sessions").text
