"""`grove evolve SKILL --dataset FILE [...]`, `grove evolve report RUN`, `apply RUN`, `stop RUN`, `list`: offline
GEPA evolution of a skill (see grove.evolve). gepa is imported only when a run starts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from grove.cli.common import fail, load, split_csv
from grove.cli.errors import USAGE


class _DefaultRun(TyperGroup):
    """`grove evolve SKILL ...` means `grove evolve run SKILL ...`."""

    # typer's base takes the Context of its vendored (private) click; what it passes is this subclass of it
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # pyright: ignore[reportIncompatibleMethodOverride]
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_DefaultRun,
    help="Evolve a skill offline against an evaluation set (GEPA, Pareto over accuracy/tokens/robustness).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _skill_dir(skill: str, home: Path) -> Path:
    path = Path(skill)
    if (path / "SKILL.md").is_file():
        return path
    path = home / "skills" / skill
    if not (path / "SKILL.md").is_file():
        fail(f"no skill '{skill}' (a name in {home / 'skills'} or a folder holding SKILL.md)", USAGE)
    return path


def _show(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(report, ensure_ascii=False, default=str))
        return
    from rich.console import Console

    from grove.evolve.report import render

    Console().print(render(report))


@app.command("run")
def run(
    skill: str = typer.Argument(..., help="Skill name in $GROVE_HOME/skills, or a skill folder."),
    dataset: Path = typer.Option(
        ...,
        "--dataset",
        "-d",
        help="JSONL: input, expected, grader?, paraphrases?, workspace? (path -> text)",
    ),
    mode: str = typer.Option(
        "agent",
        "--mode",
        help="agent: run the skill as grove's agent does (tools, sandbox, a workspace per item); "
        "completion: one completion without tools.",
    ),
    toolsets: str = typer.Option("files,terminal", "--toolsets", help="Agent mode: the agent's toolsets."),
    max_iterations: int = typer.Option(12, "--max-iterations", help="Agent mode: model calls per episode."),
    allow_unisolated: bool = typer.Option(
        False,
        "--allow-unisolated",
        help="Let agent commands and code graders run with rlimits only where no sandbox isolation exists.",
    ),
    model: str | None = typer.Option(None, "--model", "-m", help="Task model (default: the configured one)."),
    reflection_model: str | None = typer.Option(
        None, "--reflection-model", "-r", help="Model for the reflective operator (off when not given)."
    ),
    judge_model: str | None = typer.Option(None, "--judge-model", help="Model for the `llm` grader."),
    budget: int = typer.Option(200, "--budget", "-b", help="Metric calls (one candidate on one item)."),
    token_budget: int | None = typer.Option(None, "--token-budget", help="Stop after this many task tokens."),
    objectives: str = typer.Option("accuracy,tokens,robustness", "--objectives", help="Pareto objectives."),
    operators: str | None = typer.Option(
        None,
        "--operators",
        help="Mutation operators: examples,shorten,drop,reflect (default: all that apply).",
    ),
    variants: int = typer.Option(
        2,
        "--variants",
        "-k",
        help="Perturbed variants per item besides the original (robustness = the worst).",
    ),
    seeds: int = typer.Option(1, "--seeds", "-s", help="Runs per prompt."),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", help="Completion cap per model call (default 512 agent, 64 completion)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the splits and the search."),
    merge: bool = typer.Option(False, "--merge", help="Also use gepa's merge (resume may then diverge)."),
    run_id: str | None = typer.Option(None, "--run", help="Run id; an existing one resumes."),
    apply: bool = typer.Option(False, "--apply", help="Write the chosen version back if it is promoted."),
    force: bool = typer.Option(
        False, "--force", help="With --apply: write back even without a significant gain."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Evolve SKILL; the run lives in $GROVE_HOME/evolve/<run>/ (touch STOP there, or `grove evolve stop`, to end
    it early; run again with --run to resume)."""
    from grove.evolve.evaluate import EvalConfig
    from grove.evolve.pareto import Epsilon
    from grove.evolve.run import EvolveConfig, run_evolution
    from grove.evolve.rundir import new_run_id, runs_root
    from grove.llm.spec import build_model

    settings = load()
    folder = _skill_dir(skill, settings.home)
    if not dataset.is_file():
        fail(f"dataset not found: {dataset}", 2)
    if mode not in ("agent", "completion"):
        fail(f"--mode must be agent or completion, got {mode!r}", 2)
    ops = split_csv(operators) or ["examples", "shorten", "drop"] + (["reflect"] if reflection_model else [])
    cfg = EvolveConfig(
        budget=budget,
        token_budget=token_budget,
        seed=seed,
        merge=merge,
        operators=ops,
        eval=EvalConfig(
            variants=variants,
            seeds=seeds,
            max_tokens=max_tokens or (512 if mode == "agent" else 64),
            allow_unisolated=allow_unisolated,
        ),
        eps=Epsilon().only(split_csv(objectives) or []),
    )
    # hundreds of calls: long-lived models (the SDK's pooled connection, where the transport is "auto")
    task = build_model(model or settings.resolved_model(), settings, long_lived=True)
    refl = build_model(reflection_model, settings, long_lived=True) if reflection_model else None
    judge = build_model(judge_model, settings, long_lived=True) if judge_model else None
    run_dir = runs_root(settings.home) / (run_id or new_run_id(folder.name))
    runner = None
    if mode == "agent":
        from grove.runtime.evolve_episode import AgentRunner

        runner = AgentRunner(
            settings,
            task,
            home=run_dir / "agent-home",
            toolsets=tuple(split_csv(toolsets) or ()),
            max_iterations=max_iterations,
            allow_unisolated=allow_unisolated,
        )
    try:
        report = run_evolution(
            folder, dataset, run_dir, task, refl, cfg, judge=judge, show_progress=not as_json, runner=runner
        )
    except ImportError as e:
        fail(f"{e}; evolution needs the gepa package: pip install gepa")
    except ValueError as e:  # the dataset, a grader spec or the run's settings: fix the input
        fail(str(e), 2)
    _show(report, as_json)
    if not as_json:
        print(f"run: {run_dir}")
    if apply:
        _apply(run_dir, settings.home, force)


def _apply(run_dir: Path, home: Path, force: bool) -> None:
    from grove.evolve.writeback import WriteBackError, apply_run
    from grove.skills.manage import SkillError

    try:
        applied = apply_run(run_dir, home / "skills", force=force)
    except (WriteBackError, SkillError, OSError) as e:
        fail(str(e))
    if Path(applied.get("path", "")).parent.resolve() == (home / "skills").resolve():
        print(f"{applied['message']}; `grove skills rollback {applied['skill']}` undoes it")
    else:
        print(f"{applied['message']} in {applied['path']}; the old version is {run_dir / 'original.md'}")


@app.command("report")
def report(
    run: str = typer.Argument(..., help="Run id (or its folder)."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Write the PNG plot here (default: <run>/front.png)."
    ),
    no_plot: bool = typer.Option(False, "--no-plot", help="Skip the plot."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Table of the front, before/after on test with the 95% interval, lineage; a PNG of the front."""
    from grove.evolve.rundir import read_json, resolve_run

    settings = load()
    try:
        run_dir = resolve_run(settings.home, run)
    except FileNotFoundError as e:
        fail(str(e))
    if not (run_dir / "report.json").is_file():
        fail(f"run {run_dir.name} has no report yet (still running, or stopped before the first iteration)")
    data = read_json(run_dir / "report.json")
    _show(data, as_json)
    if no_plot:
        return
    try:
        from grove.evolve.report import plot as draw

        path = draw(data, plot or run_dir / "front.png")
    except ImportError:
        print("plot skipped: matplotlib is not installed (pip install matplotlib)")
        return
    if not as_json:
        print(f"plot: {path}")


@app.command("apply")
def apply_cmd(
    run: str = typer.Argument(..., help="Run id (or its folder)."),
    force: bool = typer.Option(False, "--force", help="Write back even without a significant test gain."),
) -> None:
    """Write the run's chosen version back through the skill manager (the old one stays in history)."""
    from grove.evolve.rundir import resolve_run

    settings = load()
    try:
        run_dir = resolve_run(settings.home, run)
    except FileNotFoundError as e:
        fail(str(e))
    _apply(run_dir, settings.home, force)


@app.command("stop")
def stop(run: str = typer.Argument(..., help="Run id (or its folder).")) -> None:
    """Ask a running evolution to stop after its current iteration (it stays resumable)."""
    from grove.evolve.rundir import request_stop, resolve_run

    settings = load()
    try:
        run_dir = resolve_run(settings.home, run)
    except FileNotFoundError as e:
        fail(str(e))
    request_stop(run_dir)
    print(f"stop requested: {run_dir}")


@app.command("list")
def list_runs() -> None:
    """Evolution runs in $GROVE_HOME/evolve, newest last."""
    from grove.evolve.rundir import read_json, runs_root

    root = runs_root(load().home)
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        rep = folder / "report.json"
        if rep.is_file():
            data = read_json(rep)
            print(f"{folder.name}\tchosen {data['chosen']}\tpromote {'yes' if data['promote'] else 'no'}")
        else:
            print(f"{folder.name}\t(no report)")
