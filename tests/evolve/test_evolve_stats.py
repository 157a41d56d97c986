"""Paired statistics: bootstrap interval and McNemar's exact p."""

from __future__ import annotations

from grove.evolve.stats import bootstrap_ci, mcnemar_exact, paired


def test_clear_gain_has_an_interval_above_zero() -> None:
    before = [0.0] * 40 + [1.0] * 60
    after = [1.0] * 100
    r = paired(before, after)
    assert r.diff == 0.4 and r.ci_low > 0.25 and r.significant
    assert r.c == 40 and r.b == 0 and r.mcnemar_p < 1e-6


def test_no_change_is_not_significant() -> None:
    xs = [1.0, 0.0] * 50
    r = paired(xs, xs)
    assert not r.significant and r.mcnemar_p == 1.0


def test_mcnemar_and_bootstrap_values() -> None:
    assert abs(mcnemar_exact(1, 5) - 0.21875) < 1e-9
    lo, hi = bootstrap_ci([1.0, -1.0] * 10, reps=500)
    assert lo < 0 < hi
