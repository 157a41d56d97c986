"""The canonical example end to end with the script model, in plan-then-act mode: sales.csv -> smoothed.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from codekit import reference_moving_average, write_csv

from grove.codeskills.canonical import AVG_CODE, AVG_SKILL, CSV_SKILL, CanonicalScript, goal
from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.plan.loop import PlanAndAct, PlanRun, with_code_skills
from grove.runtime.assemble import open_agent
from grove.runtime.profile import Profile
from grove.store.sessions import SessionStore

SALES = [[f"2026-01-{d:02d}", 100 + (d * 37) % 23, d % 5] for d in range(1, 31)]
TRAFFIC = [[f"w{d}", (d * 53) % 97 + 0.5, (d * 7) % 11] for d in range(1, 21)]


def _run(settings: Settings, store: SessionStore, ws: Path, text: str, script: object) -> tuple[PlanRun, str]:
    agent = open_agent(
        settings,
        Profile(workspace=ws, toolsets=["files", "skills"], model=ScriptModel(script)),
        store=store,
    )
    agent.tools = with_code_skills(agent.tools)
    try:
        return PlanAndAct(agent).run(text), agent.session_id
    finally:
        agent.close()


def _column(path: Path, name: str) -> list[float]:
    with open(path, newline="") as f:
        return [float(row[name]) for row in csv.DictReader(f)]


def _created(run: PlanRun) -> list[str]:
    return [c.arguments["name"] for c in run.tool_calls if c.name == "skill_code_create"]


@pytest.fixture
def ws(workspace: Path) -> Path:
    write_csv(workspace / "sales.csv", ["date", "revenue", "units"], SALES)
    write_csv(workspace / "traffic.csv", ["week", "visits", "signups"], TRAFFIC)
    return workspace


def test_first_run_writes_two_skills_second_run_reuses_them(
    settings, store, ws: Path, grove_home: Path
) -> None:
    first, sid = _run(settings, store, ws, goal("sales.csv", "revenue", "smoothed.csv"), CanonicalScript())
    assert first.done, first.answer
    assert _created(first) == [CSV_SKILL, AVG_SKILL]
    assert all(c.ok for c in first.tool_calls)
    kinds = [r.step.kind for r in first.rounds]
    assert kinds == ["write_skill", "write_skill", "call_skill", "call_skill", "write_result", "done"]
    # the first plan wrote both skills, then called them by their new names
    assert [s.render().split(":")[0] for s in first.rounds[0].plan.steps[:4]] == [
        f"write_skill {CSV_SKILL}",
        f"write_skill {AVG_SKILL}",
        f"call_skill {CSV_SKILL}",
        f"call_skill {AVG_SKILL}",
    ]
    for name in (CSV_SKILL, AVG_SKILL):
        assert (grove_home / "skills" / name / "scripts" / "test_skill.py").is_file()
    # the verifier: smoothed.csv against a reference computation
    revenue = [float(r[1]) for r in SALES]
    assert _column(ws / "smoothed.csv", "revenue") == revenue
    assert _column(ws / "smoothed.csv", "revenue_ma7") == pytest.approx(
        reference_moving_average(revenue), abs=1e-6
    )
    # the plans and steps are stored with the session
    stored = store.messages(sid)
    assert sum("[grove plan]" in str(m.get("content")) for m in stored) == len(first.rounds)
    assert any(c["function"]["name"] == "submit_plan" for m in stored for c in m.get("tool_calls") or [])
    assert any(
        "[grove act] Step 1 of the plan: write_skill csv-column" in str(m.get("content")) for m in stored
    )

    second, _ = _run(
        settings, store, ws, goal("traffic.csv", "visits", "smoothed_visits.csv"), CanonicalScript()
    )
    assert second.done and _created(second) == []
    assert [c.arguments["name"] for c in second.tool_calls if c.name == "skill_run"] == [CSV_SKILL, AVG_SKILL]
    assert [r.step.kind for r in second.rounds] == ["call_skill", "call_skill", "write_result", "done"]
    visits = [float(r[1]) for r in TRAFFIC]
    assert _column(ws / "smoothed_visits.csv", "visits_ma7") == pytest.approx(
        reference_moving_average(visits), abs=1e-6
    )
    assert second.model_calls < first.model_calls
    assert sorted(p.name for p in (grove_home / "skills").iterdir() if not p.name.startswith(".")) == [
        CSV_SKILL,
        AVG_SKILL,
    ]


def test_buggy_first_attempt_is_not_stored_and_the_fix_is(
    settings, store, ws: Path, grove_home: Path
) -> None:
    skill_dir = grove_home / "skills" / AVG_SKILL
    seen_after_failure: list[bool] = []
    script = CanonicalScript(buggy_first=True)

    def model(messages, tools):  # watches the library at the moment the failing result comes back
        last = messages[-1]
        if (
            last["role"] == "tool"
            and last.get("name") == "skill_code_create"
            and "not stored" in last["content"]
        ):
            seen_after_failure.append(skill_dir.exists())
        return script(messages, tools)

    run, _ = _run(settings, store, ws, goal("sales.csv", "units", "smoothed_units.csv"), model)
    assert run.done
    creates = [c for c in run.tool_calls if c.name == "skill_code_create"]
    assert [(c.arguments["name"], c.ok) for c in creates] == [
        (CSV_SKILL, True),
        (AVG_SKILL, False),
        (AVG_SKILL, True),
    ]
    assert seen_after_failure == [False]  # the failing version never reached the library
    assert (skill_dir / "scripts" / "skill.py").read_text() == AVG_CODE
    units = [float(r[2]) for r in SALES]
    assert _column(ws / "smoothed_units.csv", "units_ma7") == pytest.approx(
        reference_moving_average(units), abs=1e-6
    )
