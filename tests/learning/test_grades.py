"""Grades: every use of a skill by a working session gets an outcome (answered, tool errors after loading it,
corrected by the user's next message, a goal judged done or failed); a success rate with its count; the curator
proposes a patch for weak agent-made skills and never touches the user's or pinned ones."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from grove.cli.curator import app as curator_app
from grove.config import Settings
from grove.learning.curator import run_curator
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session
from grove.skills.discover import home_skills_dir
from grove.skills.manage import SkillManager
from grove.skills.outcomes import Outcome, outcomes_of, record_outcomes
from grove.skills.usage import stats
from grove.store.sessions import SessionStore

SKILL = "---\nname: {name}\ndescription: {what}\n---\n# Steps\n1. Read build.txt.\n"
VIEW = {"name": "skill_view", "arguments": {"name": "build-notes"}}
READ_OK = {"name": "read_file", "arguments": {"path": "build.txt"}}
READ_MISSING = {"name": "read_file", "arguments": {"path": "missing.txt"}}


def setup_skill(
    settings: Settings, store: SessionStore, name: str = "build-notes", actor: str = "agent"
) -> None:
    SkillManager(home_skills_dir(settings.home), store.db, actor=actor).create(
        name, SKILL.format(name=name, what=f"How this project is built ({name}).")
    )


def session(settings: Settings, store: SessionStore, workspace: Path, steps: list) -> Session:
    (workspace / "build.txt").write_text("make all\n")
    profile = Profile(
        source="chat", toolsets=["files", "skills"], workspace=workspace, model=ScriptModel(steps)
    )
    return Session.open(settings, profile, store=store)


def test_a_used_skill_is_graded_answered_then_corrected(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    setup_skill(settings, store)
    s = session(
        settings,
        store,
        workspace,
        [{"tool_calls": [VIEW]}, {"tool_calls": [READ_OK]}, "Run make all.", "Sorry: run make build."],
    )
    s.run_turn("how do I build it?")
    assert [o.outcome for o in outcomes_of(store.db, "build-notes")] == ["answered"]
    s.run_turn("no, that's wrong: the target is build")  # the user corrects the agent
    assert [o.outcome for o in outcomes_of(store.db, "build-notes")] == ["corrected"]
    st = stats(store.db)["build-notes"]
    assert (st.graded, st.succeeded, st.success_rate) == (1, 0, 0.0)
    s.close()


def test_tool_errors_after_loading_a_skill_are_its_outcome(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    setup_skill(settings, store)
    s = session(
        settings,
        store,
        workspace,
        [{"tool_calls": [READ_MISSING]}, {"tool_calls": [VIEW]}, {"tool_calls": [READ_MISSING]}, "done"],
    )
    s.run_turn("build it")
    [graded] = outcomes_of(store.db, "build-notes")
    assert (
        graded.outcome == "tool_errors" and "1 failed call" in graded.detail
    )  # the error before it is not its
    s.close()


def test_a_goal_judged_done_grades_its_uses_done(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    setup_skill(settings, store)
    steps = [{"tool_calls": [VIEW]}, "Run make all.", '{"verdict": "done", "reason": "it says how"}']
    s = session(settings, store, workspace, steps)
    goal = s.run_goal("find how it is built", max_turns=2)
    assert goal.status == "done"
    assert [o.outcome for o in outcomes_of(store.db, "build-notes")] == ["done"]
    s.close()


def test_the_reviewer_reading_a_skill_grades_nothing(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    setup_skill(settings, store)
    profile = Profile(
        source="review",
        toolsets=["skills"],
        workspace=workspace,
        model=ScriptModel([{"tool_calls": [VIEW]}, "ok"]),
    )
    s = Session.open(settings, profile, store=store)
    s.run_turn("review this")
    assert outcomes_of(store.db, "build-notes") == []
    s.close()


def test_the_curator_proposes_a_patch_for_weak_agent_skills_only(
    settings: Settings, store: SessionStore
) -> None:
    setup_skill(settings, store, "flaky-deploy")
    setup_skill(settings, store, "good-deploy")
    setup_skill(settings, store, "my-deploy", actor="user")
    setup_skill(settings, store, "pinned-deploy")
    SkillManager(home_skills_dir(settings.home), store.db).set_pinned("pinned-deploy", True)
    rows = []
    for i in range(4):
        rows += [
            Outcome("flaky-deploy", "s", i, "tool_errors" if i else "answered"),
            Outcome("good-deploy", "s", i, "answered"),
            Outcome("my-deploy", "s", i, "failed"),
            Outcome("pinned-deploy", "s", i, "corrected"),
        ]
    record_outcomes(store.db, rows)
    report = run_curator(settings, db=store.db)
    weak = [a for a in report.actions if a.kind == "weak"]
    assert [(a.skills, a.applied) for a in weak] == [(["flaky-deploy"], False)]
    assert "1 of 4 graded uses (25%)" in weak[0].detail and "patch" in weak[0].detail
    assert "[note] weak flaky-deploy" in report.render()
    assert json.dumps(stats(store.db)["good-deploy"].as_dict()).count('"success_rate": 1.0') == 1
    status = CliRunner().invoke(curator_app, ["status"])
    assert status.exit_code == 0
    assert (
        "weak (proposed for a patch): flaky-deploy (succeeded in 1 of 4 graded uses (25%))" in status.output
    )
