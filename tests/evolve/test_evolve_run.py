"""End-to-end evolution with the script model and rule-based graders (needs the gepa package)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.evolve.refundkit import RULE, SKILL, reflection_model, task_model, write_dataset, write_skill

from grove.evolve.evaluate import EvalConfig
from grove.evolve.run import EvolveConfig, run_evolution
from grove.evolve.rundir import read_json, request_stop
from grove.llm.script import ScriptModel


def _config(operators: list[str], budget: int = 150) -> EvolveConfig:
    return EvolveConfig(budget=budget, operators=operators, eval=EvalConfig(variants=1))


def test_a_skill_missing_a_rule_evolves_to_include_it(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "skills")
    data = write_dataset(tmp_path / "d.jsonl")
    report = run_evolution(
        skill, data, tmp_path / "run", task_model(), reflection_model(), _config(["reflect", "shorten"])
    )
    chosen = (tmp_path / "run" / "chosen.md").read_text(encoding="utf-8")
    assert report["chosen"] != 0 and RULE in chosen
    assert report["test"]["after"]["accuracy"] == 1.0 > report["test"]["before"]["accuracy"]
    assert report["promote"] and report["test"]["paired"]["ci_low"] > 0
    assert chosen.split("---\n# Refund")[0] == SKILL.split("---\n# Refund")[0]  # frontmatter frozen
    manifest = read_json(tmp_path / "run" / "manifest.json")
    assert manifest["dataset_sha256"] and manifest["task_model"] == "script"


def test_deterministic_operators_add_the_failing_case_as_a_worked_example(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "skills")
    data = write_dataset(tmp_path / "d.jsonl")
    cfg = _config(["examples", "shorten"])
    cfg.max_token_ratio = 1.2  # the worked example costs ~10% more tokens on this tiny skill
    report = run_evolution(skill, data, tmp_path / "run", task_model(), None, cfg)
    chosen = (tmp_path / "run" / "chosen.md").read_text(encoding="utf-8")
    assert "opened software -> deny" in chosen
    assert report["test"]["after"]["accuracy"] > report["test"]["before"]["accuracy"]
    assert len(chosen.encode()) <= 1.2 * len(SKILL.encode())


def _front_texts(run: Path, report: dict) -> list[str]:
    return sorted((run / "candidates" / f"{i:03d}.md").read_text(encoding="utf-8") for i in report["front"])


def test_a_run_stopped_and_resumed_gives_the_same_result(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "skills")
    data = write_dataset(tmp_path / "d.jsonl")
    cfg = _config(["shorten", "examples", "drop"], budget=200)
    full = run_evolution(skill, data, tmp_path / "full", task_model(), None, cfg)

    run = tmp_path / "resumed"
    inner = task_model()

    def stopping(messages, tools):
        if inner.calls == 150:
            request_stop(run)
        return inner.complete(messages, tools, None).text

    first = run_evolution(skill, data, run, ScriptModel(stopping), None, cfg)
    assert first["stopped"] and first["metric_calls"] < full["metric_calls"]
    resumed = run_evolution(skill, data, run, task_model(), None, cfg)
    assert not resumed["stopped"]
    assert resumed["metric_calls"] == full["metric_calls"]
    assert [c["hash"] for c in resumed["candidates"]] == [c["hash"] for c in full["candidates"]]
    assert _front_texts(run, resumed) == _front_texts(tmp_path / "full", full)
    assert resumed["chosen"] == full["chosen"]


def test_write_back_and_rollback_restore_the_original_bytes(tmp_path: Path, grove_home: Path) -> None:
    from grove.evolve.writeback import WriteBackError, apply_run
    from grove.skills.manage import SkillManager

    root = grove_home / "skills"
    skill = write_skill(root)
    data = write_dataset(tmp_path / "d.jsonl")
    run = grove_home / "evolve" / "r1"
    run_evolution(skill, data, run, task_model(), reflection_model(), _config(["reflect"]))
    applied = apply_run(run, root)
    assert RULE in (skill / "SKILL.md").read_text(encoding="utf-8")
    assert read_json(run / "manifest.json")["applied"] == applied
    with pytest.raises(WriteBackError):
        apply_run(run, root)  # the skill changed since the run: refused
    SkillManager(root).rollback("refund-policy")
    assert (skill / "SKILL.md").read_bytes() == SKILL.encode()


def test_the_token_budget_and_the_size_cap_bound_the_search(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "skills")
    data = write_dataset(tmp_path / "d.jsonl")
    cfg = _config(["examples"], budget=400)
    cfg.token_budget = 12_000
    report = run_evolution(skill, data, tmp_path / "run", task_model(), None, cfg)
    assert report["metric_calls"] < 400
    cap = 1.2 * len(SKILL.encode())
    assert all(c["bytes"] <= cap for c in report["candidates"])
