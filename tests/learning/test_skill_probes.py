"""Prose skills held to probes: with learning.skill_probes on, the reviewer's create or patch of a SKILL.md is
replayed on its model (a throwaway home holding the candidate, a fresh workspace with the probe's files) and
written only when the probe's checks pass with it; a failing probe refuses the change and writes nothing; probes
are kept with the skill, so a later patch that breaks it is refused too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grove.config import Settings
from grove.config.learning import LearningConfig
from grove.learning.skill_probes import load_probes
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session
from grove.runtime.review import review_session

TASK = "Total the amount column of sales.csv into total.txt"
SALES = "region;amount\nn;3\ns;4\n"
SKILL = (
    "---\nname: csv-totals\ndescription: Totals a column of a semicolon-separated CSV file. Use for CSV totals.\n"
    "---\n\nSplit each line on ';' (these files are semicolon-separated), not on ','.\n"
)
PROBE = {
    "name": "csv-totals",
    "task": TASK,
    "files": {"sales.csv": SALES},
    "checks": [{"file": "total.txt", "equals": "7"}],
}


def call(tool: str, **arguments: Any) -> dict:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


def model(reviewer_steps: list[Any], heeds_skill: bool, replays: list[bool]) -> ScriptModel:
    """The reviewer replays its steps; a probe replay (a session without skill_probe) writes the right total only
    when it heeds the skill and the skill in its prompt says the file is semicolon-separated."""

    def reply(messages: list[dict], tools: list[dict]) -> Any:
        names = {t["function"]["name"] for t in tools}
        step = sum(1 for m in messages if m["role"] == "assistant")
        if "skill_probe" in names:
            return reviewer_steps[step] if step < len(reviewer_steps) else "review done"
        if step:
            return "done"
        knows = "semicolon-separated" in str(messages[0]["content"])
        replays.append(knows)
        return call("write_file", path="total.txt", content="7" if heeds_skill and knows else "0")

    return ScriptModel(reply)


def reviewed_session(settings: Settings, workspace: Path) -> str:
    (workspace / "sales.csv").write_text(SALES)
    steps = [
        call("write_file", path="total.txt", content="0"),
        "it is 0",
    ]
    s = Session.open(settings, Profile(workspace=workspace, toolsets=["files"], model=ScriptModel(steps)))
    s.run_turn(TASK)
    s.close()
    return s.id


def probed_settings() -> Settings:
    return Settings(learning=LearningConfig(skill_probes=True))


def skill_md(settings: Settings) -> Path:
    return settings.home / "skills" / "csv-totals" / "SKILL.md"


def test_a_prose_skill_whose_probe_fails_is_refused_and_not_written(workspace: Path) -> None:
    settings = probed_settings()
    sid = reviewed_session(settings, workspace)
    replays: list[bool] = []
    steps = [
        call("skill_probe", **PROBE),
        call("skill_manage", action="create", name="csv-totals", content=SKILL),
    ]
    report = review_session(
        settings, model(steps, heeds_skill=False, replays=replays), sid, workspace=workspace
    )
    assert report.error is None
    assert not skill_md(settings).exists()  # nothing written
    [change] = report.changes
    assert change["applied"] is False and change["result"].startswith(
        "change refused, nothing written: probe 1"
    )
    assert "total.txt reads '0', expected '7'" in change["result"]
    assert replays == [True]  # replayed once, with the candidate in the library; no baseline for a failure
    assert load_probes(settings.home, "csv-totals") == []  # a refused change keeps no probe


def test_a_prose_skill_whose_probe_passes_is_kept_with_its_probe(workspace: Path) -> None:
    settings = probed_settings()
    sid = reviewed_session(settings, workspace)
    replays: list[bool] = []
    steps = [
        call("skill_probe", **PROBE),
        call("skill_manage", action="create", name="csv-totals", content=SKILL),
    ]
    report = review_session(
        settings, model(steps, heeds_skill=True, replays=replays), sid, workspace=workspace
    )
    assert skill_md(settings).is_file()
    [change] = report.changes
    assert change["applied"] is True
    assert change["probes"] == [
        "probe 1 passes with the change, fails without it: total.txt reads '0', expected '7'"
    ]
    assert replays == [True, False]  # with the candidate, then the baseline without it
    [kept] = load_probes(settings.home, "csv-totals")
    assert kept.task == TASK and kept.files == {"sales.csv": SALES}

    # a later review's patch that drops what made the probe pass is refused by the kept probe
    sid = reviewed_session(settings, workspace)
    patch = call(
        "skill_manage",
        action="patch",
        name="csv-totals",
        old_string="Totals a column of a semicolon-separated CSV file.",
        new_string="Totals a column of a CSV file.",
    )
    steps = [call("skill_view", name="csv-totals"), patch]
    report = review_session(settings, model(steps, heeds_skill=True, replays=[]), sid, workspace=workspace)
    assert "semicolon-separated" in skill_md(settings).read_text()
    refused = [c for c in report.changes if c.get("action") == "patch"]
    assert (
        refused and refused[0]["applied"] is False and "probe 1 fails with the change" in refused[0]["result"]
    )


def test_no_probe_no_prose_change_and_probes_off_changes_nothing(workspace: Path) -> None:
    settings = probed_settings()
    sid = reviewed_session(settings, workspace)
    steps = [call("skill_manage", action="create", name="csv-totals", content=SKILL)]
    report = review_session(settings, model(steps, heeds_skill=True, replays=[]), sid, workspace=workspace)
    assert not skill_md(settings).exists()
    assert "no probe for 'csv-totals'" in report.changes[0]["result"]

    plain = (
        Settings()
    )  # skill_probes off (the default): the reviewer writes as before, and has no skill_probe
    seen: list[set[str]] = []

    def reviewer(messages: list[dict], tools: list[dict]) -> Any:
        seen.append({t["function"]["name"] for t in tools})
        step = sum(1 for m in messages if m["role"] == "assistant")
        return [call("skill_manage", action="create", name="csv-totals", content=SKILL), "ok"][min(step, 1)]

    review_session(plain, ScriptModel(reviewer), sid, workspace=workspace)
    assert skill_md(plain).is_file() and "skill_probe" not in seen[0]
    assert json.loads(json.dumps(report.changes))  # the change log stays JSON


def test_a_curator_merge_is_held_to_the_members_probes(settings: Settings) -> None:
    from tests.learning.test_curator import UMBRELLA, overlapping

    from grove.learning.curator import run_curator
    from grove.learning.skill_probes import Probe, save_probes
    from grove.runtime.review_probes import probes_for
    from grove.skills.discover import discover
    from grove.store.sessions import SessionStore

    settings = probed_settings()
    store = SessionStore.open(settings.db_path)
    overlapping(settings, store)
    probe = Probe(task="Report on sales.csv", checks=[{"output_regex": "markdown report"}])  # type: ignore[list-item]
    save_probes(settings.home, "csv-report", [probe])

    def curator_model(umbrella: str) -> ScriptModel:
        def reply(messages: list[dict], tools: list[dict]) -> Any:
            if not tools:  # the merge proposal
                return json.dumps({"merge": True, "name": "csv-reports", "content": umbrella, "why": "same"})
            # a probe replay: a markdown report only when the library says how
            return "a markdown report" if "markdown reports" in str(messages[0]["content"]) else "a list"

        return ScriptModel(reply)

    vague = UMBRELLA.replace("column totals and markdown reports", "numbers")
    report = run_curator(settings, model=curator_model(vague), db=store.db, probes=probes_for(settings))
    [action] = report.actions
    assert action.kind == "skipped" and "refused: probe 1 fails with the change" in action.detail
    assert {"csv-report", "csv-totals"} <= set(discover(settings).skills)

    report = run_curator(settings, model=curator_model(UMBRELLA), db=store.db, probes=probes_for(settings))
    assert [(a.kind, a.applied) for a in report.actions] == [("consolidate", True)]
    assert load_probes(settings.home, "csv-reports") == [probe]  # the umbrella carries its members' probes
    store.db.close()
