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
    assert figures["diff_later_success_ci"] == "0.000..0.000" and "on_later_prompt_review_ci" in figures


def test_the_report_gives_first_and_later_success_and_cost_with_bootstrap_intervals() -> None:
    import learning_report as summary

    def row(task: str, instance: int, ok: bool, calls: int, review: int = 0) -> dict:
        extra = {"review_calls": review, "review_prompt_tokens": 100 * review} if review else {}
        return {"task": task, "class": "c", "instance": instance, "ok": ok, "model_calls": calls,
                "prompt_tokens": 1000 * calls, **extra}  # fmt: skip

    off = [row(f"c-{i}", i, i % 2 == 0, 6) for i in range(1, 9)]
    on = [row(f"c-{i}", i, i > 1, 6 if i == 1 else 3, review=1) for i in range(1, 9)]
    figures = summary.figures(off, on)
    assert figures["off_later_success"] == "0.571" and figures["on_later_success"] == "1.000"
    lo, hi = (float(x) for x in figures["off_later_success_ci"].split(".."))
    assert 0 <= lo < 0.571 < hi <= 1  # an interval, not a point, when the tasks disagree
    assert figures["diff_later_calls"] == "-3.00" and figures["diff_later_calls_ci"] == "-3.00..-3.00"
    assert figures["diff_later_prompt_review"] == "-2900"  # the reviewer's cost is counted with learning on
    lines = summary.table({"off": off, "on": on}, ["c"])
    assert any(ln.startswith("on   all              later   7  100% [100%,100%]") for ln in lines)


def test_the_agent_can_read_the_task_workspace_even_as_root(settings) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("tiktoken")
    pytest.importorskip("bpe_openai")
    import harness

    from grove.llm.script import ScriptModel
    from grove.store.sessions import SessionStore

    model = ScriptModel([{"tool_calls": [{"name": "read_file", "arguments": {"path": "data.csv"}}]}, "done"])
    harness.run_task(stream(["csv-total"], 1)[0], settings, model, False, 4)
    store = SessionStore.open(settings.db_path)
    (session,) = store.db.conn.execute("SELECT id FROM sessions").fetchall()
    results = [m["content"] for m in store.messages(session[0]) if m["role"] == "tool"]
    store.db.close()
    assert results and "name,cost" in results[0], results  # not "permission denied" for the sandbox group
