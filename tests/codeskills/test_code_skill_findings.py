"""Issue 15, code skills: the contract (types from solve's signature) is checked before the sandbox runs; a result
goes straight to a workspace file (output_path) without passing through the model; the reviewer is shown code a
session wrote and ran twice and can turn it into a code skill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codekit import create_skill

from grove.codeskills.contract import read_contract

# solve leaves a mark in the workspace whenever it really runs
MARKING = (
    "def solve(x: int, scale: float = 1.0, tags: list[str] | None = None) -> dict:\n"
    "    open('ran.txt', 'a').write('ran\\n')\n"
    "    return {'x': x, 'scaled': x * scale if isinstance(x, int) else None}\n"
)
MARKING_TESTS = (
    "from skill import solve\n\n\ndef test_scale(tmp_path):\n    import os\n    os.chdir(tmp_path)\n"
    "    assert solve(2, 1.5) == {'x': 2, 'scaled': 3.0}\n"
)
ROWS = "def solve(n: int) -> list[dict]:\n    return [{'i': i, 'sq': i * i} for i in range(n)]\n"
ROWS_TESTS = "from skill import solve\n\n\ndef test_rows():\n    assert solve(2) == [{'i': 0, 'sq': 0}, {'i': 1, 'sq': 1}]\n"


def test_check_args_enforces_the_signature_types_strictly() -> None:
    from grove.codeskills.check import ArgumentsError, check_args

    contract = read_contract(MARKING)
    check_args(contract, {"x": 3})
    check_args(contract, {"x": 3, "scale": 2, "tags": ["a"]})  # an int is a fine float
    check_args(contract, {"x": 3, "tags": None})
    for bad, words in [
        ({"x": "notint"}, ["x:", "valid integer", '"notint"']),
        ({"x": True}, ["x:", "valid integer"]),
        ({"x": 1.5}, ["x:", "valid integer"]),
        ({}, ["x: missing"]),
        ({"x": 1, "y": 2}, ["y: not an argument of solve"]),
        ({"x": 1, "tags": ["a", 3]}, ["tags"]),
        ({"x": 1, "scale": "2"}, ["scale:"]),
    ]:
        with pytest.raises(ArgumentsError) as e:
            check_args(contract, bad)
        text = str(e.value)
        assert "solve(x: int, scale: float = 1.0, tags: list[str] | None = None) -> dict" in text
        assert all(w in text for w in words), text
        assert "Nothing ran" in text


def test_skill_run_refuses_arguments_that_break_the_contract_before_the_sandbox_runs(
    call, workspace: Path
) -> None:
    create_skill(call, "scaled", MARKING, MARKING_TESTS)
    bad = call("skill_run", name="scaled", args={"x": "notint"})
    assert not bad.ok and "x:" in bad.content and "valid integer" in bad.content
    assert "solve(x: int" in bad.content  # the model is shown the signature to call it right
    assert not (workspace / "ran.txt").exists()  # solve never ran
    good = call("skill_run", name="scaled", args={"x": 4, "scale": 0.5})
    assert good.ok and json.loads(good.content)["result"] == {"x": 4, "scaled": 2.0}
    assert (workspace / "ran.txt").read_text() == "ran\n"


def test_skill_run_writes_the_result_to_a_file_without_passing_it_through_the_model(
    call, workspace: Path
) -> None:
    create_skill(call, "squares", ROWS, ROWS_TESTS)
    out = call("skill_run", name="squares", args={"n": 5000}, output_path="out/squares.jsonl")
    assert out.ok, out.content
    data = json.loads(out.content)
    assert "result" not in data and len(out.content) < 800  # the model gets where, not what
    assert data["output"]["path"] == "out/squares.jsonl" and data["output"]["length"] == 5000
    lines = (workspace / "out" / "squares.jsonl").read_text().splitlines()
    assert len(lines) == 5000 and json.loads(lines[4999]) == {"i": 4999, "sq": 4999 * 4999}
    out = call("skill_run", name="squares", args={"n": 3}, output_path="small.json")
    assert json.loads((workspace / "small.json").read_text()) == [
        {"i": 0, "sq": 0},
        {"i": 1, "sq": 1},
        {"i": 2, "sq": 4},
    ]


def test_output_path_outside_the_workspace_is_refused_before_running(call, workspace: Path) -> None:
    create_skill(call, "scaled", MARKING, MARKING_TESTS)
    (workspace / "link").symlink_to(workspace.parent)
    for path in ("../escape.json", str(workspace.parent / "escape.json"), "link/escape.json"):
        out = call("skill_run", name="scaled", args={"x": 1}, output_path=path)
        assert not out.ok and "outside the workspace" in out.content, out.content
    assert not (workspace.parent / "escape.json").exists() and not (workspace / "ran.txt").exists()
