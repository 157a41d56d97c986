"""The learning loops around every kind of turn: a failed turn or plan never leaves a running review paused, and
the curator runs with a model on its schedule from every entrance (a thread in chat, a detached process after a
one-shot `grove run`, at most once per interval), so merges happen on their own."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
from tests.clirun import grove

from grove.config import Settings, load_settings
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session
from grove.skills.discover import discover, home_skills_dir
from grove.skills.manage import SkillManager

TOTALS = "---\nname: csv-totals\ndescription: Compute column totals of a CSV file and write a markdown report.\n---\n1. Sum.\n"
REPORT = "---\nname: csv-report\ndescription: Write a markdown report of a CSV file with totals per column.\n---\n1. Report.\n"
UMBRELLA = "---\nname: csv-reports\ndescription: Summarise CSV files into column totals and markdown reports.\n---\n1. Sum.\n2. Report.\n"


def overlapping_agent_skills(settings: Settings) -> None:
    agent = SkillManager(home_skills_dir(settings.home), actor="agent")
    agent.create("csv-totals", TOTALS)
    agent.create("csv-report", REPORT)


def merge_script(tmp_path: Path) -> str:
    path = tmp_path / "curator.yaml"
    answer = {"merge": True, "name": "csv-reports", "content": UMBRELLA, "why": "same task"}
    path.write_text(json.dumps([{"text": json.dumps(answer)}]))
    return f"script:{path}"


def curator_runs(settings: Settings) -> int:
    with sqlite3.connect(settings.db_path) as db:
        return db.execute("SELECT count(*) FROM learning_runs WHERE kind = 'curator'").fetchone()[0]


@pytest.mark.parametrize("kind", ["turn", "plan"])
def test_a_failed_turn_or_plan_leaves_no_review_paused(
    kind: str, tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "r.yaml").write_text("- text: nothing\n")
    monkeypatch.setenv("GROVE_LEARNING__REVIEW_MODEL", f"script:{tmp_path / 'r.yaml'}")
    failing = ScriptModel([ModelError(ErrorKind.AUTH, "no key", model="script")])
    profile = Profile(source="chat", workspace=workspace, review="thread", model=failing)
    session = Session.open(load_settings(), profile)
    assert session.reviews is not None
    with pytest.raises(ModelError):
        session.run_plan("write out.txt") if kind == "plan" else session.run_turn("hello")
    assert not session.reviews.paused  # a review running in the background carries on
    session.close()


def test_chat_runs_the_curator_with_a_model(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no learning.curator_model: the curator uses learning.review_model, as the reviewer does
    monkeypatch.setenv("GROVE_LEARNING__REVIEW_MODEL", merge_script(tmp_path))
    settings = load_settings()
    overlapping_agent_skills(settings)
    profile = Profile(source="chat", workspace=workspace, curator=True, model=ScriptModel(["hi"]))
    session = Session.open(settings, profile)
    for t in threading.enumerate():
        if t.name == "grove-curator":
            t.join(30)
    session.close()
    assert sorted(discover(settings).skills) == ["csv-reports"]  # merged on its own, by the curator's model


def test_grove_run_curates_detached_at_most_once_per_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROVE_LEARNING__CURATOR_MODEL", merge_script(tmp_path))
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    overlapping_agent_skills(settings)
    answer = tmp_path / "a.yaml"
    answer.write_text("- text: hi\n- text: hi again\n")
    code, _, _ = grove(capsys, "run", "hello", "-m", f"script:{answer}", "--wait-review")
    assert code == 0
    assert sorted(discover(settings).skills) == ["csv-reports"] and curator_runs(settings) == 1
    SkillManager(home_skills_dir(settings.home), actor="agent").create("csv-totals", TOTALS)
    code, _, _ = grove(capsys, "run", "hello", "-m", f"script:{answer}", "--wait-review")
    assert code == 0 and curator_runs(settings) == 1  # not due again for learning.curator_interval_days
