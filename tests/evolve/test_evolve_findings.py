"""Regression tests for the evolution findings of issue 15 (shorten, apply on a folder, unsafe graders, promotion on
too few items, gepa's reflective proposer, robustness equal to accuracy by default)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.evolve.refundkit import RULE, reflection_model, task_model, write_dataset, write_skill

from grove.evolve.evaluate import EvalConfig, Evaluator
from grove.evolve.graders import make_grader
from grove.evolve.operators import shorten_section
from grove.evolve.stats import paired
from grove.llm.script import ScriptModel


def test_shorten_with_nothing_to_trim_changes_nothing() -> None:
    # a section of plain rules has nothing soft to cut: dropping its last rule would lose it
    assert shorten_section("## Rules\n- a\n- b\n") is None
    assert shorten_section("## Rules\n- Opened software is denied.\n") is None
    assert shorten_section("## Rules\n- a (see the appendix)\n- b\n") == "## Rules\n- a\n- b\n"


def test_apply_on_a_run_started_from_a_folder_writes_that_folder(
    tmp_path: Path, grove_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.clirun import grove

    from grove.evolve.run import EvolveConfig, run_evolution

    skill = write_skill(tmp_path / "elsewhere")  # a folder outside $GROVE_HOME/skills
    data = write_dataset(tmp_path / "d.jsonl", n=260)
    cfg = EvolveConfig(budget=120, operators=["reflect"], eval=EvalConfig(variants=0))
    run_evolution(skill, data, grove_home / "evolve" / "r3", task_model(), reflection_model(), cfg)
    code, out, err = grove(capsys, "evolve", "apply", "r3")
    assert code == 0, out + err
    assert "Traceback" not in out + err
    assert RULE in (skill / "SKILL.md").read_text(encoding="utf-8")


def test_a_python_grader_spec_cannot_run_model_output() -> None:
    with pytest.raises(ValueError, match="registered"):
        make_grader("python:builtins:exec")
    with pytest.raises(ValueError):
        make_grader("python:os:system")


def test_sandboxed_code_grader_runs_outside_this_process(tmp_path: Path) -> None:
    code = tmp_path / "g.py"
    code.write_text(
        "import os\n"
        "def grade(output, expected, files):\n"
        "    return (1.0 if output.strip() == expected else 0.0), f'pid {os.getpid()}'\n",
        encoding="utf-8",
    )
    g = make_grader(f"code:{code}:grade", allow_unisolated=True)
    right = g("42", "42")
    assert right.score == 1.0 and right.feedback.startswith("pid ")
    import os

    assert right.feedback != f"pid {os.getpid()}"
    assert g("41", "42").score == 0.0


def test_promotion_needs_100_held_out_items() -> None:
    from grove.evolve.stats import MIN_TEST_ITEMS

    # 36 items, 5 discordant pairs all in favour: the bootstrap interval is above zero, yet too few items
    before = [0.0] * 5 + [1.0] * 20 + [0.0] * 11
    after = [1.0] * 5 + [1.0] * 20 + [0.0] * 11
    small = paired(before, after)
    assert small.ci_low > 0 and not small.significant
    assert "items" in small.why_not
    big = paired(before * 3, after * 3)
    assert big.n >= MIN_TEST_ITEMS and big.significant


def test_robustness_differs_from_accuracy_with_the_defaults() -> None:
    from grove.evolve.dataset import Example

    # a model that only answers right when the prompt reads exactly as written
    model = ScriptModel(lambda m, t: "deny" if m[-1]["content"] == "order 40 days old" else "approve")
    ev = Evaluator(model)
    assert ev.config.variants >= 2
    (r,) = ev.run("---\nname: x\ndescription: y\n---\n", "h", [Example("a", "order 40 days old", "deny")])
    assert len(r.outputs) >= 3 and r.robustness == 0.0 < r.accuracy


def test_without_a_work_root_each_episode_gets_a_private_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the default was one fixed /tmp/grove-evolve: whichever user made it first owned it, and every other
    # user's evaluation then failed with "permission denied" making its workspace there
    import tempfile

    from grove.evolve.dataset import Example
    from grove.evolve.evaluate import Episode

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen: list[Path] = []

    def runner(skill_text, prompt, ws, settings):  # type: ignore[no-untyped-def]
        seen.append(ws)
        assert ws.is_dir() and ws.parent == tmp_path
        return Episode("deny", 1)

    ev = Evaluator(runner=runner, config=EvalConfig(variants=2))
    ev.run("---\nname: x\ndescription: y\n---\n", "h", [Example("a", "order 40 days old", "deny")])
    assert len(seen) >= 3 and len(set(seen)) == len(seen)
    assert list(tmp_path.iterdir()) == []  # each removed after its episode, no shared folder left behind


def test_reflection_goes_through_gepas_proposal_signature() -> None:
    from grove.evolve.reflective import reflect

    seen: list[str] = []
    model = ScriptModel(lambda m, t: seen.append(m[-1]["content"]) or "```\n## Rules\n- a\n" + RULE + "\n```")
    record = {
        "Inputs": "order 2 days old, opened software",
        "Generated Outputs": "approve",
        "Feedback": "expected 'deny'",
        "Expected": "deny",
        "score": 0.0,
    }
    out = reflect(model, "skill", "01 ## Rules", "## Rules\n- a\n", [record], 500)
    assert out == "## Rules\n- a\n" + RULE + "\n"
    # gepa's InstructionProposalSignature renders each record as a markdown example
    assert "# Example 1" in seen[0] and "## Feedback" in seen[0]


def test_the_cli_refuses_a_dataset_naming_a_python_grader(
    tmp_path: Path, grove_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.clirun import grove

    write_skill(grove_home / "skills")
    data = tmp_path / "d.jsonl"
    lines = [{"input": f"q{i}", "expected": "x", "grader": "python:builtins:exec"} for i in range(12)]
    data.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    steps = tmp_path / "steps.yaml"
    steps.write_text("- text: x\n", encoding="utf-8")
    code, out, err = grove(capsys, "evolve", "refund-policy", "-d", str(data), "--model", f"script:{steps}")
    assert code == 2 and "not allowed" in err and "Traceback" not in out + err
