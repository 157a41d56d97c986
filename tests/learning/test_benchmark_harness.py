"""The learning benchmark's plumbing: every verifier passes the reference solution and fails the untouched task;
the harness runs both modes on a script model and ends with one line of key=value figures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "learning"
sys.path.insert(0, str(BENCH))

from tasks import CLASSES, stream  # noqa: E402


def test_the_stream_has_six_classes_of_five_instances_in_arrival_order() -> None:
    tasks = stream()
    assert len(CLASSES) >= 6 and len(tasks) == 6 * 5
    assert [t.instance for t in tasks[:6]] == [1] * 6 and len({t.id for t in tasks}) == 30


@pytest.mark.parametrize("task", stream(), ids=lambda t: t.id)
def test_each_verifier_fails_the_untouched_task_and_passes_the_solution(task, tmp_path: Path) -> None:
    task.setup(tmp_path)
    assert not task.verify(tmp_path)
    task.solve(tmp_path)
    assert task.verify(tmp_path)


def test_harness_runs_both_modes_and_prints_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tiktoken")
    pytest.importorskip("bpe_openai")
    import harness

    script = tmp_path / "s.yaml"
    script.write_text("".join("- text: I cannot do that.\n" for _ in range(10)))
    assert harness.main(["--model", f"script:{script}", "--classes", "csv-total", "--instances", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].split()[:3] == ["mode", "class", "part"]
    assert any(line.startswith("on   csv-total        later") for line in out)
    figures = dict(kv.split("=", 1) for kv in out[-1].split())
    assert figures["tasks"] == "2" and figures["off_success"] == "0.000" and figures["on_success"] == "0.000"
    assert figures["review_calls_per_task"] == "1.00" and int(figures["off_prompt_tokens_per_task"]) > 0
