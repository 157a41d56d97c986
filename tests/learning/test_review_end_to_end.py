"""The learning loop end to end on the script model: a busy session leads to a reviewer `create`; a later session
sees the skill in its index and views it; its review then patches that skill instead of creating a duplicate."""

from __future__ import annotations

from pathlib import Path

from grove.agent.loop import Agent
from grove.agent.prompt import build_system_prompt
from grove.config import Settings
from grove.learning.runs import runs
from grove.llm.script import ScriptModel
from grove.runtime.reviews import ReviewScheduler
from grove.skills.discover import discover, home_skills_dir
from grove.skills.history import versions
from grove.skills.usage import stats
from grove.store.sessions import SessionStore
from grove.tools import files, skills
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry

SKILL = """---
name: csv-reports
description: Summarise CSV files into a markdown report with totals per column. Use when asked for a CSV report.
---
# CSV reports
1. Read the CSV with read_file.
2. Total each numeric column.
3. Write report.md with one markdown table.
"""
DUPLICATE = """---
name: csv-summaries
description: Summarise a CSV file into a markdown report with column totals. Use for CSV summary or report requests.
---
# CSV summaries
1. Read the CSV file.
2. Compute column totals.
3. Write a markdown report table.
"""


def call(tool: str, **args: object) -> dict:
    return {"name": tool, "arguments": args}


def open_session(settings: Settings, store: SessionStore, workspace: Path, model: ScriptModel) -> Agent:
    tools = ToolRegistry([*files.tools(), *skills.tools()])
    system = build_system_prompt(settings, workspace, tools)
    sid = store.create_session(model.name, system_prompt=system)
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id=sid)
    return Agent(model, tools, ctx, store, sid, [{"role": "system", "content": system}])


def busy_turn(first: list[dict] | None = None) -> list[dict]:
    steps = [{"tool_calls": first}] if first else []
    steps += [
        {"tool_calls": [call("write_file", path="sales.csv", content="region,amount\nnorth,3\nsouth,4\n")]},
        {"tool_calls": [call("read_file", path="sales.csv")]},
        {"tool_calls": [call("search_files", pattern="amount")]},
        {"tool_calls": [call("write_file", path="report.md", content="| total | 7 |\n")]},
        {"tool_calls": [call("read_file", path="report.md")]},
        "report.md holds the totals.",
    ]
    return steps


def test_review_creates_then_a_later_review_patches_instead_of_duplicating(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    # session 1: five tool calls -> the reviewer runs in the background and creates a class-level skill
    agent1 = open_session(settings, store, workspace, ScriptModel(busy_turn()))
    assert "## Skills" not in agent1.messages[0]["content"]
    reviewer1 = ScriptModel(
        [
            {"tool_calls": [call("skills_search", query="csv report")]},
            {
                "tool_calls": [
                    call("skill_manage", action="create", name="csv-reports", content=SKILL, reason="r")
                ]
            },
            "Created csv-reports for CSV report tasks.",
        ]
    )
    scheduler = ReviewScheduler(settings, lambda: reviewer1)
    decision = scheduler.after_turn(agent1, agent1.run_turn("make a report of sales.csv"))
    assert decision is not None and decision.skill_review and "5 tool calls" in " ".join(decision.reasons)
    assert scheduler.wait(timeout=30)
    [report1] = scheduler.reports
    assert report1.error is None and [c["action"] for c in report1.changes] == ["create"]
    skill = discover(settings, workspace).get("csv-reports")
    assert skill is not None and skill.created_by == "agent"
    assert (
        stats(store.db)["csv-reports"].created_session == agent1.session_id
    )  # provenance: the reviewed session
    agent1.model.push("You're welcome.")  # type: ignore[attr-defined]
    quiet = scheduler.after_turn(agent1, agent1.run_turn("thanks"))
    assert quiet is not None and not quiet.skill_review and not scheduler.pending()  # counters were reset

    # session 2: the skill is in the index; the agent views it, works, and the reviewer improves that skill
    agent2 = open_session(
        settings, store, workspace, ScriptModel(busy_turn([call("skill_view", name="csv-reports")]))
    )
    assert "csv-reports" in agent2.messages[0]["content"]
    reviewer2 = ScriptModel(
        [
            {"tool_calls": [call("skill_manage", action="create", name="csv-summaries", content=DUPLICATE)]},
            {
                "tool_calls": [
                    call("skill_manage", action="patch", name="csv-reports", old_string="x", new_string="y")
                ]
            },
            {"tool_calls": [call("skill_view", name="csv-reports")]},
            {
                "tool_calls": [
                    call(
                        "skill_manage",
                        action="patch",
                        name="csv-reports",
                        old_string="3. Write report.md with one markdown table.",
                        new_string="3. Write report.md with one markdown table.\n4. Check the totals by reading it back.",
                        reason="the session verified its output",
                    )
                ]
            },
            "Patched csv-reports with a verification step.",
        ]
    )
    scheduler2 = ReviewScheduler(settings, lambda: reviewer2)
    result2 = agent2.run_turn("summarise sales.csv again")
    assert result2.tool_calls[0].name == "skill_view"
    assert scheduler2.after_turn(agent2, result2) is not None and scheduler2.wait(timeout=30)
    [report2] = scheduler2.reports
    refusals = [m["content"] for m in reviewer2.requests[-1][0] if m["role"] == "tool"]
    assert "'csv-reports' already covers this kind of task" in refusals[0]
    assert "read the skill first: call skill_view(name='csv-reports')" in refusals[1]
    assert [c["action"] for c in report2.changes] == ["patch"]

    lib = discover(settings, workspace)
    assert sorted(lib.skills) == ["csv-reports"]  # no duplicate
    assert "4. Check the totals" in lib.skills["csv-reports"].skill_md.read_text()
    [version] = versions(home_skills_dir(settings.home), "csv-reports")
    assert version.actor == "agent" and version.session_id == agent2.session_id  # reversible, with provenance

    # reviewer sessions are kept apart from the user's sessions, and every run is logged
    listed = {s.id for s in store.list_sessions()}
    assert listed == {agent1.session_id, agent2.session_id}
    logged = runs(store.db, kind="skill_review")
    assert [r.session_id for r in logged] == [agent2.session_id, agent1.session_id]
    assert all(r.status == "done" and r.reviewer_session_id for r in logged)
    assert store.get_session(logged[0].reviewer_session_id).source == "review"
