"""The curator: stale and archive by age (agent skills only), overlap found without a model, merges proposed by a
model and applied with backups, dry runs that change nothing, the idle/interval schedule, and the CLI."""

from __future__ import annotations

import json
import time
from pathlib import Path

from typer.testing import CliRunner

from grove.cli.curator import app
from grove.config import Settings
from grove.learning.curator import DAY, curator_due, run_curator
from grove.llm.script import ScriptModel
from grove.skills.discover import discover, home_skills_dir
from grove.skills.history import versions
from grove.skills.manage import SkillManager
from grove.skills.stale import read_stale, stale_names
from grove.store.sessions import SessionStore


def skill_md(name: str, description: str, body: str = "# Steps\n1. Do the thing.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def library(settings: Settings, store: SessionStore) -> tuple[SkillManager, SkillManager]:
    root = home_skills_dir(settings.home)
    return SkillManager(root, store.db, actor="agent"), SkillManager(root, store.db, actor="user")


def test_unused_agent_skills_go_stale_then_archived_user_and_pinned_never(
    settings: Settings, store: SessionStore
) -> None:
    agent, user = library(settings, store)
    agent.create("old-notes", skill_md("old-notes", "Write meeting notes into a dated markdown file."))
    agent.create("pinned-one", skill_md("pinned-one", "Rotate the nginx logs on the web hosts."))
    agent.set_pinned("pinned-one", True)
    user.create("mine", skill_md("mine", "Compile the LaTeX thesis with latexmk."))
    later = time.time() + 40 * DAY

    dry = run_curator(settings, dry_run=True, db=store.db, now=later)
    assert [(a.kind, a.skills, a.applied) for a in dry.actions] == [("stale", ["old-notes"], False)]
    assert read_stale(settings.home) == {} and dry.checked == 1

    report = run_curator(settings, db=store.db, now=later)
    assert [(a.kind, a.skills, a.applied) for a in report.actions] == [("stale", ["old-notes"], True)]
    assert stale_names(settings) == {"old-notes"}
    assert (
        discover(settings).get("old-notes") is not None
    )  # hidden from the index, still there and searchable

    report = run_curator(settings, db=store.db, now=time.time() + 100 * DAY)
    assert [(a.kind, a.skills) for a in report.actions] == [("archive", ["old-notes"])]
    assert sorted(discover(settings).skills) == ["mine", "pinned-one"]
    assert stale_names(settings) == set()
    agent.restore("old-notes")  # archived, never deleted
    assert discover(settings).get("old-notes") is not None


def test_a_stale_skill_used_again_comes_back(settings: Settings, store: SessionStore) -> None:
    agent, _ = library(settings, store)
    agent.create("tidy", skill_md("tidy", "Tidy a Python project's imports."))
    run_curator(settings, db=store.db, now=time.time() + 40 * DAY)
    assert stale_names(settings) == {"tidy"}
    with store.db.transaction() as c:
        c.execute("UPDATE skill_usage SET last_used_at = ? WHERE name = 'tidy'", (time.time() + 39 * DAY,))
    report = run_curator(settings, db=store.db, now=time.time() + 41 * DAY)
    assert [a.kind for a in report.actions] == ["fresh"] and stale_names(settings) == set()


def overlapping(settings: Settings, store: SessionStore) -> None:
    agent, user = library(settings, store)
    agent.create(
        "csv-totals",
        skill_md("csv-totals", "Compute column totals of a CSV file and write a markdown report."),
    )
    agent.create(
        "csv-report", skill_md("csv-report", "Write a markdown report of a CSV file with totals per column.")
    )
    agent.create(
        "git-bisect", skill_md("git-bisect", "Find the commit that broke a test with git bisect run.")
    )
    user.create("csv-mine", skill_md("csv-mine", "Write a markdown report of a CSV file with column totals."))


UMBRELLA = skill_md(
    "csv-reports",
    "Summarise CSV files into column totals and markdown reports. Use for any CSV report task.",
    "# CSV reports\n1. Read the CSV.\n2. Total each numeric column.\n3. Write a markdown table.\n",
)


def test_overlap_is_found_without_a_model_and_user_skills_are_left_alone(
    settings: Settings, store: SessionStore
) -> None:
    overlapping(settings, store)
    report = run_curator(settings, db=store.db)
    assert [(a.kind, a.skills) for a in report.actions] == [("overlap", ["csv-report", "csv-totals"])]
    assert sorted(discover(settings).skills) == ["csv-mine", "csv-report", "csv-totals", "git-bisect"]


def test_a_model_merges_overlapping_skills_into_an_umbrella_with_backups(
    settings: Settings, store: SessionStore
) -> None:
    overlapping(settings, store)
    answer = json.dumps({"merge": True, "name": "csv-reports", "content": UMBRELLA, "why": "same task"})
    dry = run_curator(settings, dry_run=True, model=ScriptModel([answer]), db=store.db)
    assert [(a.kind, a.applied) for a in dry.actions] == [("consolidate", False)]
    assert "csv-reports" not in discover(settings).skills

    model = ScriptModel([answer])
    report = run_curator(settings, model=model, db=store.db)
    assert "=== csv-report ===" in model.requests[0][0][1]["content"]
    [action] = report.actions
    assert action.kind == "consolidate" and action.applied and action.skills == ["csv-report", "csv-totals"]
    lib = discover(settings)
    assert sorted(lib.skills) == ["csv-mine", "csv-reports", "git-bisect"]
    assert lib.skills["csv-reports"].created_by == "agent"
    root = home_skills_dir(settings.home)
    assert [v.action for v in versions(root, "csv-totals")] == [
        "archive"
    ]  # kept in history and in the archive
    assert sorted(SkillManager(root).archived()) == ["csv-report", "csv-totals"]
    assert "merged into csv-reports" in report.render() or "into 'csv-reports'" in report.render()


def test_a_model_may_keep_them_apart_and_a_bad_answer_skips_the_group(
    settings: Settings, store: SessionStore
) -> None:
    overlapping(settings, store)
    apart = run_curator(settings, model=ScriptModel(['{"merge": false, "why": "different"}']), db=store.db)
    assert [(a.kind, a.detail) for a in apart.actions] == [("overlap", "kept apart: different")]
    bad = run_curator(settings, model=ScriptModel(["I would merge them."]), db=store.db)
    assert bad.actions[0].kind == "skipped" and "no JSON object" in bad.actions[0].detail
    assert len(discover(settings).skills) == 4


def test_the_curator_runs_when_idle_and_not_run_recently(settings: Settings, store: SessionStore) -> None:
    now = time.time()
    assert curator_due(settings, store.db, now)[0]  # never used, never run
    store.create_session("script")
    due, why = curator_due(settings, store.db, now)
    assert not due and "h idle" in why
    assert curator_due(settings, store.db, now + 3 * 3600)[0]
    run_curator(settings, db=store.db, now=now + 3 * 3600)
    due, why = curator_due(settings, store.db, now + 4 * 3600)
    assert not due and "days" in why
    assert curator_due(settings, store.db, now + 8 * DAY)[0]


def test_cli_dry_run_without_a_model(settings: Settings, store: SessionStore, grove_home: Path) -> None:
    overlapping(settings, store)
    out = CliRunner().invoke(app, ["run", "--dry-run", "--no-model"])
    assert out.exit_code == 0, out.output
    assert (
        "3 agent-created skill(s) checked (dry run" in out.output
        and "overlap csv-report, csv-totals" in out.output
    )
    status = CliRunner().invoke(app, ["status"])
    assert status.exit_code == 0 and "stale (hidden from the index): none" in status.output
