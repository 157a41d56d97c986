"""Router policy without HTTP: full-jitter bounds, Retry-After capping, which errors are retried or fall back."""

from __future__ import annotations

import random

import pytest

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.router import RetryPolicy, Router
from grove.llm.script import ScriptModel
from grove.llm.types import ModelSettings

HELLO = [{"role": "user", "content": "hi"}]
SETTINGS = ModelSettings()


def test_full_jitter_stays_within_the_exponential_cap() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=10.0)
    rng = random.Random(1234)
    error = ModelError(ErrorKind.SERVER_ERROR, "boom")
    for attempt in range(12):
        bound = min(10.0, 0.5 * 2**attempt)
        samples = [policy.delay(attempt, error, rng) for _ in range(300)]
        assert all(0.0 <= d <= bound for d in samples)
        assert max(samples) > bound * 0.8  # jitter spreads over the whole range, not a fixed fraction
        assert min(samples) < bound * 0.2


@pytest.mark.parametrize(("retry_after", "expected"), [(7.0, 7.0), (500.0, 60.0), (-3.0, 0.0), (0.0, 0.0)])
def test_retry_after_wins_but_is_capped(retry_after: float, expected: float) -> None:
    error = ModelError(ErrorKind.RATE_LIMIT, "slow down", retry_after=retry_after)
    assert RetryPolicy(max_delay=60.0).delay(5, error, random.Random(0)) == expected


@pytest.mark.parametrize(
    "kind", [ErrorKind.AUTH, ErrorKind.BILLING, ErrorKind.BAD_REQUEST, ErrorKind.CONTEXT_OVERFLOW]
)
def test_permanent_errors_are_not_retried(kind: ErrorKind, sleeps) -> None:
    model = ScriptModel([ModelError(kind, "no"), "never reached"])
    with pytest.raises(ModelError) as info:
        Router([model], sleep=sleeps).complete(HELLO, [], SETTINGS)
    assert info.value.kind is kind
    assert model.calls == 1 and sleeps.delays == []


@pytest.mark.parametrize(
    ("kind", "falls_back"),
    [
        (ErrorKind.AUTH, True),
        (ErrorKind.BILLING, True),
        (ErrorKind.BAD_REQUEST, False),
        (ErrorKind.CONTEXT_OVERFLOW, False),
    ],
)
def test_which_permanent_errors_fall_back(kind: ErrorKind, falls_back: bool, sleeps) -> None:
    primary, backup = ScriptModel([ModelError(kind, "no")], name="a"), ScriptModel(["from b"], name="b")
    router = Router([primary, backup], sleep=sleeps)
    if falls_back:
        assert router.complete(HELLO, [], SETTINGS).text == "from b"
    else:
        with pytest.raises(ModelError):
            router.complete(HELLO, [], SETTINGS)
        assert backup.calls == 0


def test_retries_stop_after_the_configured_attempts(sleeps) -> None:
    model = ScriptModel([ModelError(ErrorKind.OVERLOADED, "busy")] * 5)
    with pytest.raises(ModelError) as info:
        Router([model], retry=RetryPolicy(attempts=3), sleep=sleeps).complete(HELLO, [], SETTINGS)
    assert info.value.kind is ErrorKind.OVERLOADED
    assert model.calls == 3 and len(sleeps.delays) == 2
    assert sleeps.delays[0] <= 1.0 and sleeps.delays[1] <= 2.0
