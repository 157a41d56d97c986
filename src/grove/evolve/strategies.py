"""gepa strategies that make the search a true 3-objective one and resumable: parent selection from the
accuracy/tokens/robustness front, acceptance on the minibatch by dominance, and iteration-keyed randomness (gepa does
not persist its RNG, so everything here derives from (seed, iteration) to make stop + resume reproduce a run)."""

from __future__ import annotations

import random
from typing import Any

from grove.evolve.adapter import Schedule
from grove.evolve.candidate import PREAMBLE, candidate_id
from grove.evolve.pareto import Epsilon, Point, dominates, pareto_front


def points_from_state(state: Any) -> list[Point]:
    out = []
    for i, cand in enumerate(state.program_candidates):
        obj = state.prog_candidate_objective_scores[i]
        out.append(
            Point(
                str(i),
                obj.get("accuracy", 0.0),
                obj.get("tokens", 0.0),
                obj.get("robustness", 0.0),
                candidate_id(cand),
            )
        )
    return out


def _rng(seed: int, iteration: int, salt: int) -> random.Random:
    return random.Random(seed * 1_000_003 + iteration * 7919 + salt)


class FrontSelector:
    """Parent = a uniformly drawn member of the epsilon Pareto front over the three objectives."""

    def __init__(self, seed: int, eps: Epsilon) -> None:
        self.seed, self.eps = seed, eps

    def select_candidate_idx(self, state: Any) -> int:
        front = pareto_front(points_from_state(state), self.eps).points
        ids = [int(p.id) for p in front] or [0]
        return _rng(self.seed, state.i, 1).choice(ids)


class IterationSampler:
    """Minibatch of train ids drawn from (seed, iteration) alone."""

    def __init__(self, seed: int, size: int) -> None:
        self.seed, self.size = seed, size

    def next_minibatch_ids(self, loader: Any, state: Any) -> list[Any]:
        ids = sorted(loader.all_ids())
        return _rng(self.seed, state.i, 2).sample(ids, min(self.size, len(ids)))


class SectionRoundRobin:
    """One section per iteration, cycling by iteration; records the iteration for the operator schedule."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule

    def __call__(
        self, state: Any, trajectories: Any, subsample_scores: Any, candidate_idx: int, candidate: Any
    ):
        self.schedule.iteration = state.i
        keys = sorted(candidate)
        sections = [k for k in keys if not k.endswith(PREAMBLE)] or keys
        if self.schedule.operator in ("examples",):
            examples = [k for k in sections if "example" in k.lower()]
            return [examples[0] if examples else sections[-1]]
        return [sections[(state.i // len(self.schedule.operators)) % len(sections)]]


def _means(evaluation: Any) -> Point:
    objs = evaluation.objective_scores or []
    n = max(1, len(objs))
    return Point(
        "",
        sum(o["accuracy"] for o in objs) / n,
        sum(o["tokens"] for o in objs) / n,
        sum(o["robustness"] for o in objs) / n,
    )


class DominanceAcceptance:
    """Accept a child whose minibatch vector dominates its parent's, or that gains accuracy without being dominated;
    children failing the structural gate (size, headings) never enter the pool."""

    def __init__(self, eps: Epsilon, structural: Any) -> None:
        self.eps, self.structural = eps, structural
        self.rejections: list[str] = []

    def should_accept(self, proposal: Any, state: Any) -> bool:
        problems = self.structural(proposal.candidate)
        if problems:
            self.rejections.append("; ".join(problems))
            return False
        before, after = _means(proposal.eval_before), _means(proposal.eval_after)
        tight = Epsilon(accuracy=1e-9, tokens=self.eps.tokens, robustness=1e-9)
        if dominates(before, after, tight):
            return False
        return dominates(after, before, tight) or after.accuracy > before.accuracy
