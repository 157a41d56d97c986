"""Failure memory: a tool error the agent then worked around, and a user's correction, are noted with their task;
the next session on a similar task gets the notes in its first message, one on another task does not, and a
session with learning off neither records nor shows them."""

from __future__ import annotations

from pathlib import Path

from grove.config import Settings
from grove.learning.failure_notes import load_notes, record, similar_notes
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session

TASK = "Write the quarterly sales report for the north region into report.txt"
SIMILAR = "Write the quarterly sales report for the south region into report.txt"
OTHER = "Rename the function parse_args to read_options in cli.py"


def call(name: str, **arguments: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def session(settings: Settings, workspace: Path, model: ScriptModel, review: str = "thread") -> Session:
    # review "thread" on the script model opens no reviewer (it needs learning.review_model), but learning is on
    return Session.open(
        settings, Profile(workspace=workspace, toolsets=["files"], model=model, review=review)
    )  # type: ignore[arg-type]


def first_user_message(model: ScriptModel) -> str:
    return next(m["content"] for m in model.requests[0][0] if m["role"] == "user")


def test_a_worked_around_tool_error_is_shown_to_the_next_similar_task(
    settings: Settings, workspace: Path
) -> None:
    steps = [
        call("write_file", path="/etc/report.txt", content="north: 12\n"),  # refused: outside the workspace
        call("write_file", path="report.txt", content="north: 12\n"),
        "written",
    ]
    s = session(settings, workspace, ScriptModel(steps))
    s.run_turn(TASK)
    s.close()
    [note] = load_notes(settings.home)
    assert note.kind == "tool_error" and note.task == TASK
    assert 'write_file(path="/etc/report.txt"' in note.tried and 'path="report.txt"' in note.worked
    assert note.failed  # the tool's own error text

    model = ScriptModel(["ok"])
    s = session(settings, workspace, model)
    s.run_turn(SIMILAR)
    s.close()
    shown = first_user_message(model)
    assert shown.startswith(SIMILAR) and "Earlier attempts at similar tasks failed" in shown
    assert "/etc/report.txt" in shown and 'what worked: write_file(path="report.txt"' in shown
    assert s.failures.shown == [note]

    other = ScriptModel(["ok"])
    s = session(settings, workspace, other)
    s.run_turn(OTHER)
    s.close()
    assert first_user_message(other) == OTHER  # another kind of task: nothing added


def test_a_users_correction_is_noted_and_found_for_a_similar_task(
    settings: Settings, workspace: Path
) -> None:
    s = session(settings, workspace, ScriptModel(["The CSV uses commas.", "Understood: semicolons."]))
    s.run_turn("Convert the sales table in sales.csv to JSON")
    s.run_turn("no, that's wrong: sales.csv is separated by semicolons")
    s.close()
    [note] = load_notes(settings.home)
    assert note.kind == "correction" and note.tried == "The CSV uses commas."
    assert "semicolons" in note.failed
    assert similar_notes(settings.home, "Convert the sales table in sales.csv to YAML") == [note]
    assert similar_notes(settings.home, OTHER) == []


def test_learning_off_records_and_shows_nothing(settings: Settings, workspace: Path) -> None:
    record(settings.home, "verifier", TASK, 'write_file(path="report.txt")', "the check failed: total wrong")
    steps = [call("write_file", path="/etc/x", content="1"), call("write_file", path="x", content="1"), "ok"]
    model = ScriptModel(steps)
    s = session(settings, workspace, model, review="off")
    s.run_turn(SIMILAR)
    s.close()
    assert first_user_message(model) == SIMILAR
    assert len(load_notes(settings.home)) == 1


def test_notes_are_redacted_clipped_and_kept_once(settings: Settings) -> None:
    secret = "ghp_" + "Zq9" * 12
    first = record(settings.home, "verifier", TASK, f"used token {secret}", "x" * 5000)
    assert first is not None and secret not in first.tried and len(first.failed) <= 400
    assert record(settings.home, "verifier", TASK, f"used token {secret}", "x" * 5000) is None
    assert record(settings.home, "verifier", "  ", "a", "b") is None
    (settings.home / "failures" / "broken.json").write_text("{not json")
    assert len(load_notes(settings.home)) == 1


def test_a_near_neighbour_naming_other_files_is_not_similar() -> None:
    from grove.learning.failure_notes import similar

    noted = "Sum the amount column of sales.csv and write the result to total.txt"
    assert similar("Total the amount column of sales.csv and write the result to total.txt", noted)
    assert not similar("Sum the price column of prices.csv and write the result to sum.txt", noted)
    assert not similar(OTHER, noted)


def test_a_resumed_session_is_past_its_first_turn(settings: Settings, workspace: Path) -> None:
    record(settings.home, "verifier", TASK, 'write_file(path="report.txt")', "the check failed: total wrong")
    s = session(settings, workspace, ScriptModel(["ok"]))
    s.run_turn(OTHER)
    s.close()
    model = ScriptModel(["ok"])
    profile = Profile(workspace=workspace, toolsets=["files"], model=model, review="thread", resume=s.id)
    resumed = Session.open(settings, profile)
    resumed.run_turn(SIMILAR)
    resumed.close()
    last_user = [m["content"] for m in model.requests[0][0] if m["role"] == "user"][-1]
    assert last_user == SIMILAR
