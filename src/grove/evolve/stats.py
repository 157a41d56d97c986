"""Paired statistics on the held-out test set: a bootstrap 95% interval of the mean difference, and McNemar's p.

A gain counts only on at least MIN_TEST_ITEMS paired items: on a few dozen, a handful of discordant pairs puts a
bootstrap interval above zero by luck (36 items with 5 discordant pairs did)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

MIN_TEST_ITEMS = 100


@dataclass(frozen=True)
class PairedResult:
    n: int
    before: float
    after: float
    diff: float
    ci_low: float
    ci_high: float
    mcnemar_p: float
    b: int  # before right, after wrong
    c: int  # before wrong, after right

    @property
    def significant(self) -> bool:
        return self.n >= MIN_TEST_ITEMS and self.ci_low > 0

    @property
    def why_not(self) -> str:
        """Why the gain does not count ("" when it does)."""
        if self.n < MIN_TEST_ITEMS:
            return f"only {self.n} held-out items (promotion needs >= {MIN_TEST_ITEMS})"
        if self.ci_low <= 0:
            return "the 95% interval of the gain is not above zero"
        return ""


def bootstrap_ci(
    diffs: list[float], reps: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    if not diffs:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(reps))
    lo = means[int(((1 - level) / 2) * reps)]
    hi = means[min(reps - 1, int((1 - (1 - level) / 2) * reps))]
    return lo, hi


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p (binomial test on the discordant pairs)."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def paired(before: list[float], after: list[float], seed: int = 0) -> PairedResult:
    if len(before) != len(after):
        raise ValueError("paired scores need the same items before and after")
    n = len(before)
    diffs = [a - b for a, b in zip(after, before, strict=True)]
    lo, hi = bootstrap_ci(diffs, seed=seed)
    b = sum(1 for x, y in zip(before, after, strict=True) if x >= 0.5 > y)
    c = sum(1 for x, y in zip(before, after, strict=True) if y >= 0.5 > x)
    return PairedResult(n, _mean(before), _mean(after), _mean(diffs), lo, hi, mcnemar_exact(b, c), b, c)
