"""Fixtures for the dashboard: the real serve app over a seeded GROVE_HOME, a key, and a logged-in client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the dashboard needs the serve extra (pip install 'grove-agent[serve]')")

from fastapi.testclient import TestClient
from tests.serve.conftest import make_app
from tests.serve.dashboard.seed import seed

from grove.config import Settings

BASE = "http://testserver"


@pytest.fixture
def seeded(settings: Settings) -> dict[str, str]:
    return seed(settings)


@pytest.fixture
def dash(settings: Settings, seeded: dict[str, str]) -> Any:
    return make_app(settings)


@pytest.fixture
def dash_key(dash: Any) -> str:
    return dash.state.grove.keys.add("operator", admin=True)


@pytest.fixture
def browser_client(dash: Any) -> Iterator[TestClient]:
    with TestClient(dash, base_url=BASE, follow_redirects=False) as c:
        yield c


@pytest.fixture
def logged_in(browser_client: TestClient, dash_key: str) -> TestClient:
    r = browser_client.post("/login", data={"key": dash_key, "next": "/skills"}, headers={"Origin": BASE})
    assert r.status_code == 303 and r.headers["location"] == "/skills", r.text
    return browser_client


def csrf_of(client: TestClient, path: str) -> str:
    import re

    page = client.get(path).text
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)
