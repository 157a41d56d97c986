"""The `grove evolve` commands as a user drives them (the typer app, before the lead registers it)."""

from __future__ import annotations

from pathlib import Path

from tests.evolve.refundkit import RULE, reflection_model, task_model, write_dataset, write_skill
from typer.testing import CliRunner

from grove.cli.evolve import app

runner = CliRunner()


def test_run_as_default_command_then_report_list_and_stop(tmp_path: Path, grove_home: Path) -> None:
    write_skill(grove_home / "skills")
    data = write_dataset(tmp_path / "d.jsonl", n=30)
    steps = tmp_path / "steps.yaml"
    steps.write_text("- text: approve\n" * 3000, encoding="utf-8")
    result = runner.invoke(
        app,
        [
            "refund-policy",
            "--dataset",
            str(data),
            "--model",
            f"script:{steps}",
            "--budget",
            "20",
            "--run",
            "r1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "test before" in result.output and (grove_home / "evolve" / "r1" / "report.json").is_file()
    shown = runner.invoke(app, ["report", "r1", "--plot", str(tmp_path / "f.png")])
    assert shown.exit_code == 0 and "promote: no" in shown.output
    assert (tmp_path / "f.png").is_file() or "matplotlib is not installed" in shown.output
    assert "r1" in runner.invoke(app, ["list"]).output
    assert runner.invoke(app, ["stop", "r1"]).exit_code == 0
    assert (grove_home / "evolve" / "r1" / "STOP").is_file()


def test_apply_writes_back_and_errors_are_clear(tmp_path: Path, grove_home: Path) -> None:
    from grove.evolve.evaluate import EvalConfig
    from grove.evolve.run import EvolveConfig, run_evolution

    skill = write_skill(grove_home / "skills")
    data = write_dataset(tmp_path / "d.jsonl")
    cfg = EvolveConfig(budget=120, operators=["reflect"], eval=EvalConfig(variants=0))
    run_evolution(skill, data, grove_home / "evolve" / "r2", task_model(), reflection_model(), cfg)
    applied = runner.invoke(app, ["apply", "r2"])
    assert applied.exit_code == 0 and "rollback" in applied.output
    assert RULE in (skill / "SKILL.md").read_text(encoding="utf-8")
    assert runner.invoke(app, ["report", "nope"]).exit_code != 0
    missing = runner.invoke(app, ["no-such-skill", "--dataset", str(data)])
    assert missing.exit_code != 0
