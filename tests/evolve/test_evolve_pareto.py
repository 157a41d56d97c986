"""The three-objective Pareto selector: trade-offs kept, dominated and duplicate candidates dropped."""

from __future__ import annotations

from grove.evolve.pareto import Epsilon, Point, dominates, pareto_front


def test_cheap_weaker_and_costly_better_both_kept_and_dominated_dropped() -> None:
    original = Point("0", accuracy=0.70, tokens=500, robustness=0.6)
    cheap = Point("1", accuracy=0.65, tokens=300, robustness=0.6)  # weaker but much cheaper
    costly = Point("2", accuracy=0.90, tokens=700, robustness=0.8)  # better but dearer
    dominated = Point("3", accuracy=0.60, tokens=650, robustness=0.5)  # worse than the original everywhere
    front = pareto_front([original, cheap, costly, dominated])
    assert {p.id for p in front.points} == {"0", "1", "2"}
    assert front.dropped["3"].startswith("dominated by")


def test_epsilon_ties_are_not_dominance_and_near_equal_points_are_deduplicated() -> None:
    a = Point("a", 0.800, 400, 0.7)
    b = Point("b", 0.805, 400, 0.7)  # within epsilon on every objective
    assert not dominates(b, a) and not dominates(a, b)
    front = pareto_front([a, b])
    assert [p.id for p in front.points] == ["a"] and front.dropped["b"] == "duplicate of a"
    assert dominates(b, a, Epsilon(accuracy=0.0, tokens=0.0, robustness=0.0))


def test_same_text_is_a_duplicate_even_with_noisy_scores() -> None:
    a = Point("a", 0.5, 100, 0.5, text_hash="h")
    b = Point("b", 0.5, 99, 0.5, text_hash="h")
    front = pareto_front([a, b])
    assert [p.id for p in front.points] == ["a"] and front.dropped["b"] == "duplicate of a"


def test_robustness_alone_keeps_a_point() -> None:
    a = Point("a", 0.8, 400, 0.5)
    b = Point("b", 0.8, 400, 0.9)
    assert [p.id for p in pareto_front([a, b]).points] == ["b"]


def test_switching_an_objective_off_ignores_it() -> None:
    cheap = Point("a", 0.7, 300, 0.5)
    better = Point("b", 0.8, 600, 0.5)
    assert {p.id for p in pareto_front([cheap, better]).points} == {"a", "b"}
    eps = Epsilon().only(["accuracy", "robustness"])
    assert [p.id for p in pareto_front([cheap, better], eps).points] == ["b"]
