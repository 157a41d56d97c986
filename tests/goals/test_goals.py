"""Goals on the script model: judge verdicts drive the turns; state survives a restart; blocked, budget,
unparseable judge replies and pauses stop the loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grove.agent.loop import Agent
from grove.config import Settings
from grove.goals.judge import Judge, parse_verdict
from grove.goals.runner import GoalRunner
from grove.goals.store import GoalStore
from grove.llm.script import ScriptModel
from grove.llm.types import Message, ToolSchema
from grove.runtime.assemble import open_agent
from grove.runtime.profile import Profile
from grove.store.sessions import SessionStore


def worker() -> ScriptModel:
    """The agent: answers each turn with the number of requests it has seen so far."""

    def reply(messages: list[Message], tools: list[ToolSchema]) -> str:
        return f"worked (user messages so far: {sum(1 for m in messages if m['role'] == 'user')})"

    return ScriptModel(reply)


def verdict(v: str, reason: str) -> str:
    return json.dumps({"verdict": v, "reason": reason})


def new_agent(settings: Settings, store: SessionStore, workspace: Path, resume: str | None = None) -> Agent:
    return open_agent(settings, Profile(resume=resume, workspace=workspace, model=worker()), store=store)


def user_texts(agent: Agent) -> list[str]:
    return [m["content"] for m in agent.messages if m["role"] == "user"]


def test_continue_twice_then_done(settings: Settings, store: SessionStore, workspace: Path) -> None:
    agent = new_agent(settings, store, workspace)
    judge_model = ScriptModel(
        [verdict("continue", "add tests"), verdict("continue", "fix lint"), verdict("done", "ok")]
    )
    events: list[str] = []
    goal = GoalRunner(agent, Judge(judge_model), GoalStore(store.db), events.append).start(
        "ship the parser", ["tests pass"], max_turns=5
    )
    assert goal.status == "done" and goal.turns_used == 3 and goal.reason == "ok"
    assert [(v.turn, v.verdict) for v in goal.verdicts] == [(1, "continue"), (2, "continue"), (3, "done")]
    texts = user_texts(agent)
    assert texts[0] == "ship the parser\n\nAcceptance criteria:\n- tests pass"
    assert (
        "Continuing toward the goal: add tests" in texts[1]
        and "Continuing toward the goal: fix lint" in texts[2]
    )
    # the judge saw the goal, the criteria and the latest work, in a separate call
    seen = judge_model.requests[-1][0][1]["content"]
    assert "ship the parser" in seen and "- tests pass" in seen and "worked (user messages so far: 3)" in seen
    assert any("judge: done — ok" in e for e in events)


def test_restart_between_turns_resumes_at_the_right_turn(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    agent = new_agent(settings, store, workspace)

    def crashing_judge(messages: list[Message], tools: list[ToolSchema]) -> str:
        if crashing.calls == 2:
            raise SystemExit("killed while judging turn 2")
        return verdict("continue", "keep going")

    crashing = ScriptModel(crashing_judge)
    goals = GoalStore(store.db)
    with pytest.raises(SystemExit):
        GoalRunner(agent, Judge(crashing), goals).start("migrate the db", max_turns=6)
    agent.close()
    [stored] = goals.list()
    assert stored.status == "active" and stored.turns_used == 2 and len(stored.verdicts) == 1
    assert stored.awaiting_verdict

    # a new process: fresh store handle, the session resumed from state.db
    store2 = SessionStore.open(settings.db_path)
    agent2 = new_agent(settings, store2, workspace, resume=stored.session_id)
    turns_before = len(user_texts(agent2))
    judge2 = ScriptModel([verdict("continue", "run the migration"), verdict("done", "migrated")])
    goal = GoalRunner(agent2, Judge(judge2), GoalStore(store2.db)).run(stored.id)
    assert goal.status == "done" and goal.turns_used == 3
    assert [v.turn for v in goal.verdicts] == [1, 2, 3]  # turn 2 was judged first, not run again
    new_texts = user_texts(agent2)[turns_before:]
    assert len(new_texts) == 1 and "Continuing toward the goal: run the migration" in new_texts[0]
    assert "worked (user messages so far: 2)" in judge2.requests[0][0][1]["content"]  # judged turn 2's work
    store2.db.close()


def test_blocked_stops_with_the_reason(settings: Settings, store: SessionStore, workspace: Path) -> None:
    agent = new_agent(settings, store, workspace)
    events: list[str] = []
    goal = GoalRunner(
        agent,
        Judge(ScriptModel([verdict("blocked", "needs the prod DB password")])),
        GoalStore(store.db),
        events.append,
    ).start("rotate the prod DB password")
    assert goal.status == "blocked" and goal.reason == "needs the prod DB password" and goal.turns_used == 1
    assert any("blocked: needs the prod DB password" in e for e in events)


def test_unparseable_judge_is_retried_then_pauses_the_goal(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    agent = new_agent(settings, store, workspace)
    judge_model = ScriptModel(["I think it's mostly fine", "still not json", verdict("done", "never asked")])
    goal = GoalRunner(agent, Judge(judge_model), GoalStore(store.db)).start("do it")
    assert goal.status == "paused" and "no verdict" in (goal.reason or "")
    assert judge_model.calls == 2 and goal.turns_used == 1  # retried once, then no more turns
    # the retry told the judge what was wrong with its reply
    assert "one line of JSON" in judge_model.requests[1][0][-1]["content"]


def test_turn_budget_and_resume_with_more_turns(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    agent = new_agent(settings, store, workspace)
    goals = GoalStore(store.db)
    judge_model = ScriptModel(lambda m, t: verdict("continue", "more"))
    goal = GoalRunner(agent, Judge(judge_model), goals).start("endless", max_turns=2)
    assert goal.status == "exhausted" and goal.turns_used == 2 and judge_model.calls == 2
    goals.set_max_turns(goal.id, goal.turns_used + 1)
    goal = GoalRunner(agent, Judge(ScriptModel([verdict("done", "finally")])), goals).run(goal.id)
    assert goal.status == "done" and goal.turns_used == 3


def test_pause_from_elsewhere_stops_before_the_next_turn(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    agent = new_agent(settings, store, workspace)
    goals = GoalStore(store.db)

    def pausing_judge(messages: list[Message], tools: list[ToolSchema]) -> str:
        [g] = goals.list()
        goals.set_status(g.id, "paused", "paused by the user")  # as `grove goal pause ID` would, mid-run
        return verdict("continue", "next step")

    goal = GoalRunner(agent, Judge(ScriptModel(pausing_judge)), goals).start("long job")
    assert goal.status == "paused" and goal.turns_used == 1 and goal.reason == "paused by the user"


def test_parse_verdict_is_tolerant_of_fences_but_not_of_unknown_verdicts() -> None:
    v = parse_verdict('```json\n{"verdict": "Done", "reason": "all green"}\n```')
    assert v is not None and (v.verdict, v.reason) == ("done", "all green")
    assert parse_verdict('{"verdict": "maybe", "reason": "x"}') is None
    bare = parse_verdict(" `Continue`.\n")  # a reply that is only a verdict word (small local judges)
    assert bare is not None and (bare.verdict, bare.reason) == ("continue", "")
    assert parse_verdict("done reading the file") is None  # a sentence is no verdict
    assert parse_verdict("blocked: the agent cannot go on") is None
    assert parse_verdict("maybe") is None
