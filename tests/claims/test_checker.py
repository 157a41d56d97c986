"""The checker on its own: claims found by kind and decided from the tool record, non-claims left alone, and the
benchmark's corpus scored (its tuning part must stay at the goal)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grove.claims.turn import check_answer, marks

WROTE = {
    "name": "write_file",
    "arguments": {"path": "src/app.py"},
    "ok": True,
    "content": "wrote 9 bytes to src/app.py",
}
FAILED_TESTS = {
    "name": "terminal",
    "arguments": {"command": "pytest -q"},
    "ok": True,
    "content": "exit=1\n1 failed",
}
PASSED_TESTS = {
    "name": "terminal",
    "arguments": {"command": "pytest -q"},
    "ok": True,
    "content": "exit=0\n3 passed",
}


def verdicts(answer: str, calls: list[dict[str, object]]) -> list[tuple[str, str]]:
    return [(v.claim.kind, v.label) for v in check_answer(answer, calls)]


def test_a_write_in_the_record_supports_the_claim_and_a_missing_one_contradicts_it() -> None:
    assert verdicts("I wrote src/app.py.", [WROTE]) == [("write", "supported")]
    assert verdicts("I wrote app.py.", [WROTE]) == [("write", "supported")]  # a shorter path, same file
    assert verdicts("I created src/other.py.", [WROTE]) == [("write", "contradicted")]  # another file
    ran = {"name": "terminal", "arguments": {"command": "python gen.py"}, "ok": True, "content": "exit=0\n"}
    assert verdicts("I created out.csv.", [ran]) == [("write", "unverifiable")]  # gen.py may have written it
    assert verdicts("I created src/other.py.", []) == [("write", "contradicted")]


def test_test_claims_follow_the_last_test_commands_exit_code() -> None:
    assert verdicts("All tests pass.", [PASSED_TESTS]) == [("tests_pass", "supported")]
    assert verdicts("All tests pass.", [FAILED_TESTS]) == [("tests_pass", "contradicted")]
    assert verdicts("All tests pass.", [FAILED_TESTS, PASSED_TESTS]) == [("tests_pass", "supported")]
    assert verdicts("The tests are green.", [WROTE]) == [("tests_pass", "unverifiable")]
    assert verdicts("All 5 tests pass.", [PASSED_TESTS]) == [("tests_pass", "contradicted")]  # it said 3


def test_a_skill_claim_needs_the_skill_created() -> None:
    created = {
        "name": "skill_manage",
        "arguments": {"action": "create", "name": "csv-tidy"},
        "ok": True,
        "content": "ok",
    }
    assert verdicts("I created the skill csv-tidy.", [created]) == [("skill", "supported")]
    assert verdicts("I created the skill csv-tidy.", []) == [("skill", "contradicted")]


def test_plans_advice_questions_and_denials_are_not_claims() -> None:
    answer = (
        "I'll write the tests next. You should run pytest. Shall I create config.yaml? "
        "I did not change any files. To run the build, use make. If you run it twice, it is idempotent."
    )
    assert check_answer(answer, []) == []


def test_marks_name_each_flagged_claim_and_why() -> None:
    line = marks(check_answer("I wrote src/app.py and all tests pass.", [WROTE, FAILED_TESTS]))
    assert line.startswith("claims checked against this turn's tool calls:")
    assert '✗ contradicted: "all tests pass"' in line and "exited 1" in line
    assert "src/app.py" not in line.split("✗")[0].split(":", 1)[1]  # the supported write is not marked
    assert marks(check_answer("I wrote src/app.py.", [WROTE])) == ""


def test_a_huge_or_pathological_answer_is_checked_quickly() -> None:
    import time

    for answer in (
        "the skill " * 20_000,
        "the skill was created, " * 9_000,
        "I wrote a.py and b.py. " * 3_000,
    ):
        start = time.perf_counter()
        found = check_answer(answer, [WROTE] * 50)
        assert time.perf_counter() - start < 1.0 and len(found) <= 200


def test_benchmark_runs_and_ends_with_one_key_value_line() -> None:
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "claims.py")], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    last = dict(pair.split("=") for pair in out.stdout.strip().splitlines()[-1].split())
    assert float(last["claims_precision_tuned"]) >= 0.95 and float(last["claims_recall_tuned"]) >= 0.90
    assert "claims_recall_clean" in last
