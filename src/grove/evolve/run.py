"""One evolution run end to end: split the data, search with gepa, recombine, take the 3-objective front, gate,
choose by the declared rule, score before/after on the held-out test set, and write everything to the run dir.

Re-running with the same run dir resumes from gepa's saved state (delete the STOP file first, `resume` does).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grove.evolve.adapter import GroveAdapter, Schedule
from grove.evolve.candidate import candidate_id, from_candidate, join_body, to_candidate
from grove.evolve.crossover import crossover_pass
from grove.evolve.dataset import Example, Splits, file_hash, load_jsonl, split_by_family
from grove.evolve.evaluate import EpisodeRunner, EvalConfig, Evaluator
from grove.evolve.gate import MAX_GROWTH, choose_final, gate, structural_problems
from grove.evolve.pareto import Epsilon, Point, dominates, pareto_front
from grove.evolve.rundir import STOP_FILE, FileLogger, StopFile, TokenBudget, read_json, write_json
from grove.evolve.stats import MIN_TEST_ITEMS, paired
from grove.llm.types import Model


@dataclass
class EvolveConfig:
    budget: int = 200  # metric calls (one candidate on one item)
    token_budget: int | None = None
    seed: int = 0
    minibatch: int = 3
    operators: list[str] = field(default_factory=lambda: ["examples", "shorten", "drop"])
    fractions: tuple[float, float, float] = (0.4, 0.2, 0.4)
    eval: EvalConfig = field(default_factory=EvalConfig)
    eps: Epsilon = field(default_factory=Epsilon)
    merge: bool = False  # gepa's merge (its scheduling state is not saved, so resume may diverge when on)
    max_token_ratio: float = 1.1


def _manifest(
    skill_dir: Path, dataset: Path, splits: Splits, task: str, refl: Model | None, cfg: EvolveConfig
):
    return {
        "skill": skill_dir.name,
        "skill_path": str(skill_dir),
        "skill_sha256": file_hash(skill_dir / "SKILL.md"),
        "dataset": str(dataset),
        "dataset_sha256": file_hash(dataset),
        "splits": splits.sizes(),
        "task_model": task,
        "reflection_model": refl.name if refl else None,
        "seed": cfg.seed,
        "config": asdict(cfg),
    }


def _progress(total: int, enabled: bool):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("evolve"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), disable=not enabled
    )
    task = progress.add_task("metric calls", total=total)

    class Hook:
        def on_budget_updated(self, event: Any) -> None:
            progress.update(task, completed=min(total, event["metric_calls_used"]))

    return progress, Hook()


def run_evolution(
    skill_dir: Path,
    dataset: Path,
    run_dir: Path,
    task_model: Model | None,
    reflection_model: Model | None = None,
    config: EvolveConfig | None = None,
    judge: Model | None = None,
    show_progress: bool = False,
    runner: EpisodeRunner | None = None,
) -> dict[str, Any]:
    """Evolve the skill in `skill_dir`. `runner` runs one episode (grove's agent with tools on a workspace: see
    grove.runtime.evolve_episode); without one, each episode is a single completion of `task_model`."""
    from gepa.api import optimize  # (the package re-exports it without declaring it public)

    cfg = config or EvolveConfig()
    if runner is None and task_model is None:
        raise ValueError("evolution needs a task model or an episode runner")
    skill_dir, dataset, run_dir = Path(skill_dir), Path(dataset), Path(run_dir)
    original_text = (skill_dir / "SKILL.md").read_text(encoding="utf-8")
    head, seed = to_candidate(original_text)
    examples = load_jsonl(dataset)
    splits = split_by_family(examples, cfg.seed, cfg.fractions)
    if not splits.train or not splits.val or not splits.test:
        raise ValueError(f"dataset too small for train/val/test by family: {splits.sizes()}")
    if cfg.eval.dataset_dir is None:
        cfg.eval.dataset_dir = str(dataset.resolve().parent)
    # one of the two is given (checked on entry)
    task_name = runner.name if runner is not None else task_model.name  # pyright: ignore[reportOptionalMemberAccess]
    manifest = _manifest(skill_dir, dataset, splits, task_name, reflection_model, cfg)
    run_dir.mkdir(parents=True, exist_ok=True)
    if (run_dir / "manifest.json").exists():
        old = read_json(run_dir / "manifest.json")
        for key in ("skill_sha256", "dataset_sha256", "seed"):
            if old.get(key) != manifest[key]:
                raise ValueError(f"run {run_dir.name} was started with another {key}; start a new run")
    (run_dir / STOP_FILE).unlink(missing_ok=True)
    write_json(run_dir / "manifest.json", manifest)
    (run_dir / "original.md").write_text(original_text, encoding="utf-8")

    name = skill_dir.name
    max_body = int(len(original_text.encode()) * MAX_GROWTH) - len(head.encode())
    evaluator = Evaluator(task_model, cfg.eval, judge, runner=runner, work_root=run_dir / "work")
    for spec in sorted({e.grader or "" for e in examples}):
        evaluator.grader(spec or None)  # an unknown or refused grader fails here, before any model call
    schedule = Schedule(
        cfg.operators
        if reflection_model or "reflect" not in cfg.operators
        else [o for o in cfg.operators if o != "reflect"] or ["examples"]
    )
    by_id = {e.id: e for e in examples}
    adapter = GroveAdapter(head, evaluator, by_id, schedule, max_body, reflection_model)

    from grove.evolve.strategies import (
        DominanceAcceptance,
        FrontSelector,
        IterationSampler,
        SectionRoundRobin,
    )

    acceptance = DominanceAcceptance(cfg.eps, lambda cand: structural_problems(name, head, seed, cand))
    progress, hook = _progress(cfg.budget, show_progress)
    with progress:
        result = optimize(
            seed_candidate=seed,
            trainset=splits.train,
            valset=splits.val,
            adapter=adapter,
            custom_candidate_proposer=adapter.propose,
            candidate_selection_strategy=FrontSelector(cfg.seed, cfg.eps),
            module_selector=SectionRoundRobin(schedule),
            batch_sampler=IterationSampler(cfg.seed, cfg.minibatch),
            skip_perfect_score=False,
            use_merge=cfg.merge,
            max_metric_calls=cfg.budget,
            stop_callbacks=[StopFile(run_dir), TokenBudget(evaluator, cfg.token_budget)],
            logger=FileLogger(run_dir / "log.txt"),
            run_dir=str(run_dir / "gepa"),
            acceptance_criterion=acceptance,
            # gepa calls only the hooks a callback has (notify_callbacks' getattr); its protocol lists them all
            callbacks=[hook],  # pyright: ignore[reportArgumentType]
            seed=cfg.seed,
        )
    stopped = (run_dir / STOP_FILE).exists()
    report = finish(run_dir, name, head, seed, result, adapter, splits, cfg, stopped, show_progress)
    report["rejections"] = acceptance.rejections
    write_json(run_dir / "report.json", report)
    return report


def _val_point(idx: str, scores: list[dict[str, float]], text_hash: str) -> Point:
    n = max(1, len(scores))
    return Point(
        idx,
        sum(s["accuracy"] for s in scores) / n,
        sum(s["tokens"] for s in scores) / n,
        sum(s["robustness"] for s in scores) / n,
        text_hash,
    )


def finish(
    run_dir: Path,
    name: str,
    head: str,
    seed: dict[str, str],
    result: Any,
    adapter: GroveAdapter,
    splits: Splits,
    cfg: EvolveConfig,
    stopped: bool,
    show_progress: bool = False,
) -> dict[str, Any]:
    from rich.progress import Progress

    with Progress(disable=not show_progress) as bar:
        score = _Scorer(adapter, bar)
        return _finish(run_dir, name, head, seed, result, score, splits, cfg, stopped)


class _Scorer:
    """adapter.evaluate in chunks of ten items, with a progress bar per evaluation."""

    def __init__(self, adapter: GroveAdapter, bar: Any) -> None:
        self.adapter, self.bar = adapter, bar

    def __call__(
        self, examples: list[Example], cand: dict[str, str], label: str
    ) -> tuple[list[float], list[dict[str, float]]]:
        task = self.bar.add_task(label, total=len(examples))
        scores: list[float] = []
        objectives: list[dict[str, float]] = []
        for i in range(0, len(examples), 10):
            batch = self.adapter.evaluate(examples[i : i + 10], cand)
            scores.extend(batch.scores)
            objectives.extend(batch.objective_scores)
            self.bar.advance(task, len(batch.scores))
        return scores, objectives


def _finish(
    run_dir: Path,
    name: str,
    head: str,
    seed: dict[str, str],
    result: Any,
    score: _Scorer,
    splits: Splits,
    cfg: EvolveConfig,
    stopped: bool,
) -> dict[str, Any]:
    adapter = score.adapter
    pool: list[dict[str, str]] = [dict(c) for c in result.candidates]
    parents: list[list[int | None]] = [list(p) for p in result.parents]
    origin = ["seed"] + ["gepa"] * (len(pool) - 1)
    val: list[Point] = []
    for i, cand in enumerate(pool):
        _, objectives = score(splits.val, cand, f"validation: candidate {i}")
        val.append(_val_point(str(i), objectives, candidate_id(cand)))
    # section-wise recombination of front members with a common ancestor
    # good variants: the front, plus every candidate the original does not dominate (best 8 by accuracy)
    front_ids = {int(p.id) for p in pareto_front(val, cfg.eps).points}
    good = sorted((p for p in val[1:] if not dominates(val[0], p, cfg.eps)), key=lambda p: -p.accuracy)[:8]
    for child, pair in crossover_pass(pool, parents, sorted(front_ids | {int(p.id) for p in good})):
        pool.append(child)
        parents.append(list(pair))
        origin.append("crossover")
        _, objectives = score(splits.val, child, f"validation: crossover {len(pool) - 1}")
        val.append(_val_point(str(len(pool) - 1), objectives, candidate_id(child)))
    front = pareto_front(val, cfg.eps)
    base = val[0]
    gates = {
        p.id: gate(name, head, seed, pool[int(p.id)], base, p, cfg.eps) for p in front.points if p.id != "0"
    }
    passing = [p for p in front.points if p.id in gates and gates[p.id].ok]
    chosen = choose_final(base, passing, cfg.max_token_ratio, cfg.eps)
    cand_dir = run_dir / "candidates"
    cand_dir.mkdir(exist_ok=True)
    for i, cand in enumerate(pool):
        (cand_dir / f"{i:03d}.md").write_text(from_candidate(head, cand), encoding="utf-8")
    base_scores, base_objectives = score(splits.test, pool[0], "test: original")
    test: dict[str, Any] = {"before": _summary(base_objectives)}
    if chosen.id != "0":
        after_scores, after_objectives = score(
            splits.test, pool[int(chosen.id)], f"test: candidate {chosen.id}"
        )
        test["after"] = _summary(after_objectives)
        stats = paired(base_scores, after_scores, seed=cfg.seed)
        test["paired"] = asdict(stats) | {"why_not": stats.why_not}
        promote = stats.significant
    else:
        promote = False
    test["min_items"] = MIN_TEST_ITEMS
    report = {
        "skill": name,
        "stopped": stopped,
        "metric_calls": result.total_metric_calls,
        "tokens_spent": adapter.evaluator.tokens_spent,
        "model_calls": adapter.evaluator.model_calls,
        "candidates": [
            {
                "index": i,
                "origin": origin[i],
                "parents": parents[i],
                "hash": val[i].text_hash,
                "bytes": len(from_candidate(head, pool[i]).encode()),
                "val": {
                    "accuracy": val[i].accuracy,
                    "tokens": val[i].tokens,
                    "robustness": val[i].robustness,
                },
                "discovered_at": result.discovery_eval_counts[i]
                if i < len(result.discovery_eval_counts)
                else None,
                "on_front": any(p.id == str(i) for p in front.points),
                "dropped": front.dropped.get(str(i)),
                "gate": asdict(gates[str(i)]) if str(i) in gates else None,
            }
            for i in range(len(pool))
        ],
        "front": [int(p.id) for p in front.points],
        "chosen": int(chosen.id),
        "test": test,
        "promote": promote,
        "operators": adapter.log,
        "rejections": [],
    }
    write_json(run_dir / "report.json", report)
    (run_dir / "chosen.md").write_text(from_candidate(head, pool[int(chosen.id)]), encoding="utf-8")
    return report


def _summary(scores: list[dict[str, float]]) -> dict[str, float]:
    n = max(1, len(scores))
    return {
        "n": len(scores),
        "accuracy": sum(s["accuracy"] for s in scores) / n,
        "tokens": sum(s["tokens"] for s in scores) / n,
        "robustness": sum(s["robustness"] for s in scores) / n,
    }


def body_of(path: Path) -> str:
    return join_body(to_candidate(path.read_text(encoding="utf-8"))[1])


__all__ = ["EvolveConfig", "Example", "run_evolution"]
