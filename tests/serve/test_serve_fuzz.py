"""schemathesis fuzzes the served OpenAPI spec (every operation, valid and invalid input, with a live key):
no input makes the server fail with a 5xx."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi", reason="grove serve needs the serve extra")
schemathesis = pytest.importorskip("schemathesis", reason="the fuzz test needs schemathesis (dev extra)")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from tests.serve.conftest import make_app  # noqa: E402

from grove.config import Settings  # noqa: E402


@pytest.fixture
def served(settings: Settings) -> tuple[Any, str]:
    app = make_app(settings)
    return app, app.state.grove.keys.add("fuzz")


@pytest.fixture
def api_schema(served: tuple[Any, str]) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", served[0])


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_5xx(case: Any, served: tuple[Any, str]) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {served[1]}"}, checks=[not_a_server_error])


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_without_a_key_nothing_runs(case: Any) -> None:
    response = case.call()
    assert 400 <= response.status_code < 500, response.text  # refused (401, or 400/413 before the key)
