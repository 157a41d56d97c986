"""Evaluation runs the skill as grove's agent does: a session with the skill loaded, real tool calls (terminal in
the sandbox, write_file) on a workspace built per item and variant, graded from the workspace; perturbed variants."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grove.config import Settings
from grove.evolve.dataset import Example, example_from
from grove.evolve.evaluate import EvalConfig, Evaluator
from grove.evolve.perturb import variants
from grove.llm.script import ScriptModel
from grove.runtime.evolve_episode import AgentRunner

SKILL = (
    "---\nname: bump\ndescription: Bump the number in n.txt.\n---\n# Bump\n\n## Steps\n1. Read n.txt.\n{rule}"
)
ADD_ONE = "2. Write n + 1 to out.txt with write_file.\n"


def agent(messages: list[dict[str, Any]], tools: list[Any]) -> dict[str, Any] | str:
    """Reads n.txt with the terminal, then writes n+1 to out.txt only if the loaded skill says so."""
    system = str(messages[0]["content"])
    assert (
        "# Skill in use" in system and "name: bump" in system
    )  # the candidate skill is what the agent follows
    results = [m for m in messages if m["role"] == "tool"]
    if not results:
        return {"tool_calls": [{"name": "terminal", "arguments": {"command": "cat n.txt"}}]}
    if len(results) == 1:
        n = int(str(results[0]["content"]).split()[-1])
        if "n + 1" in system:
            return {
                "tool_calls": [
                    {"name": "write_file", "arguments": {"path": "out.txt", "content": f"{n + 1}"}}
                ]
            }
        return f"n is {n}"
    return "done"


def _runner(tmp_path: Path) -> AgentRunner:
    return AgentRunner(Settings(), ScriptModel(agent), home=tmp_path / "agent-home", allow_unisolated=True)


def test_an_episode_makes_real_tool_calls_on_a_workspace_built_per_item(tmp_path: Path) -> None:
    work = tmp_path / "work"
    ev = Evaluator(runner=_runner(tmp_path), work_root=work, config=EvalConfig(default_grader="file:out.txt"))
    item = Example("a", "Bump the number.", "42", workspace={"n.txt": "41\n"})
    (good,) = ev.run(SKILL.format(rule=ADD_ONE), "good", [item])
    assert good.accuracy == 1.0 == good.robustness, good.trace
    assert len(good.trace) == 3 and all("terminal(cat n.txt)" in t and "write_file" in t for t in good.trace)
    (bad,) = ev.run(SKILL.format(rule=""), "bad", [item])
    assert bad.accuracy == 0.0 and "out.txt was not written" in bad.feedback
    assert ev.model_calls == 3 * 3 + 3 * 2  # three model calls per good episode, two per bad one
    assert not any(work.iterdir())  # every workspace is removed after grading


def test_perturbed_variants_change_the_prompt_and_the_workspace() -> None:
    item = Example("a", "Sum sales.csv.", "3", workspace={"sales.csv": "amount\n1\n2\n"})
    got = variants(item, 2)
    assert [v.label for v in got] == ["original", "reworded", "distractors"]
    assert got[1].prompt != item.input and item.input in got[1].prompt
    assert got[2].files is not None and got[2].files["old/sales.csv"] == "amount\n2\n3\n"
    with_paraphrase = Example("b", "q", "a", paraphrases=("p",))
    assert [v.label for v in variants(with_paraphrase, 2)] == ["original", "paraphrase 1", "reworded"]


def test_workspace_paths_in_a_dataset_stay_inside() -> None:
    line = {"input": "x", "expected": "y", "workspace": {"../escape.txt": "boom"}}
    with pytest.raises(ValueError, match="inside the workspace"):
        example_from(json.loads(json.dumps(line)), 0)
    assert example_from({"input": "x", "expected": "y", "workspace": {"a/b.txt": "1"}}, 0).workspace == {
        "a/b.txt": "1"
    }
