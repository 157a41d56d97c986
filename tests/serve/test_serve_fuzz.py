"""schemathesis fuzzes the served OpenAPI spec (every operation, valid and invalid input, with a live key):
no input makes the server fail with a 5xx."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="grove serve needs the serve extra")
schemathesis = pytest.importorskip("schemathesis", reason="the fuzz test needs schemathesis (dev extra)")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from tests.serve.conftest import make_app  # noqa: E402

from grove.config import Settings  # noqa: E402

# Each operation is fuzzed by a hypothesis test built here, not through schemathesis's pytest plugin: that plugin
# breaks with newer pytest releases ('Function' object has no attribute '_nodeid' on pytest 9.2).


def fuzz(app: Any, key: str, examples: int, check: Callable[[Any], None]) -> int:
    """Runs `check(case)` on generated cases of every operation of the app's spec; the operations fuzzed."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, headers={"Authorization": f"Bearer {key}"})
    operations = [result.ok() for result in schema.get_all_operations()]
    for operation in operations:

        @settings(
            max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        @given(case=operation.as_strategy())
        def run(case: Any) -> None:
            check(case)

        run()
    return len(operations)


@pytest.fixture
def served(settings: Settings) -> tuple[Any, str]:
    app = make_app(settings, openapi=True)
    return app, app.state.grove.keys.add("fuzz")


def test_no_input_makes_a_5xx(served: tuple[Any, str]) -> None:
    app, key = served
    headers = {"Authorization": f"Bearer {key}"}
    assert (
        fuzz(app, key, 40, lambda case: case.call_and_validate(headers=headers, checks=[not_a_server_error]))
        >= 3
    )


def test_without_a_key_nothing_runs(served: tuple[Any, str]) -> None:
    def refused(case: Any) -> None:
        response = case.call()
        assert 400 <= response.status_code < 500, response.text  # refused (401, or 400/413 before the key)

    assert fuzz(*served, 15, refused) >= 3
