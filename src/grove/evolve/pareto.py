"""A true three-objective Pareto front: accuracy (max), tokens (min), robustness (max), with epsilon-dominance.

Scores are noisy, so `a` dominates `b` only when it is at least as good on every objective within epsilon and better
by more than epsilon on one. Candidates with the same text, or whose vectors are equal within epsilon, are de-duplicated
(the earliest, i.e. the ancestor, is kept).
"""

from __future__ import annotations

from dataclasses import dataclass, field

OBJECTIVES = ("accuracy", "tokens", "robustness")


@dataclass(frozen=True)
class Point:
    id: str  # candidate index or hash
    accuracy: float
    tokens: float
    robustness: float
    text_hash: str = ""


@dataclass(frozen=True)
class Epsilon:
    accuracy: float = 0.01
    tokens: float = 0.02  # relative: 2% of the larger token count
    robustness: float = 0.01

    def only(self, objectives: list[str]) -> Epsilon:
        """The same epsilons with the objectives not listed switched off (an infinite epsilon never decides)."""
        unknown = set(objectives) - set(OBJECTIVES)
        if unknown or not objectives:
            raise ValueError(f"objectives must be among {OBJECTIVES}, got {objectives}")
        inf = float("inf")
        return Epsilon(*(getattr(self, o) if o in objectives else inf for o in OBJECTIVES))


@dataclass
class Front:
    points: list[Point]
    dropped: dict[str, str] = field(default_factory=dict)  # id -> why (dominated by X / duplicate of X)


def _better(a: Point, b: Point, eps: Epsilon) -> tuple[bool, bool]:
    """(a no worse than b on all objectives within eps, a strictly better than b by more than eps on one)."""
    tok_eps = eps.tokens * max(a.tokens, b.tokens, 1.0)
    no_worse = (
        a.accuracy >= b.accuracy - eps.accuracy
        and a.tokens <= b.tokens + tok_eps
        and a.robustness >= b.robustness - eps.robustness
    )
    better = (
        a.accuracy > b.accuracy + eps.accuracy
        or a.tokens < b.tokens - tok_eps
        or a.robustness > b.robustness + eps.robustness
    )
    return no_worse, better


def dominates(a: Point, b: Point, eps: Epsilon | None = None) -> bool:
    no_worse, better = _better(a, b, eps or Epsilon())
    return no_worse and better


def equivalent(a: Point, b: Point, eps: Epsilon | None = None) -> bool:
    e = eps or Epsilon()
    if a.text_hash and a.text_hash == b.text_hash:
        return True
    no_worse_ab, better_ab = _better(a, b, e)
    no_worse_ba, better_ba = _better(b, a, e)
    return no_worse_ab and no_worse_ba and not better_ab and not better_ba


def pareto_front(points: list[Point], eps: Epsilon | None = None) -> Front:
    """Non-dominated, de-duplicated points in input order (give the original first so it wins ties)."""
    e = eps or Epsilon()
    dropped: dict[str, str] = {}
    for p in points:
        for q in points:
            if q is not p and dominates(q, p, e):
                dropped[p.id] = f"dominated by {q.id}"
                break
    kept: list[Point] = []
    for p in points:
        if p.id in dropped:
            continue
        twin = next((k for k in kept if equivalent(k, p, e)), None)
        if twin is not None:
            dropped[p.id] = f"duplicate of {twin.id}"
            continue
        kept.append(p)
    if not kept and points:  # epsilon-dominance is not transitive: never return an empty front
        best = max(points, key=lambda p: (p.accuracy, p.robustness, -p.tokens))
        dropped.pop(best.id, None)
        kept.append(best)
    return Front(kept, dropped)
