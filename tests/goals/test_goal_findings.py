"""Issue 15, goals: the judge checks the work with read-only workspace tools and reads the goal's whole history
(compressed to fit); a turn killed mid-way is not sent again on resume; `/goal` in chat uses goals.judge_model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grove.agent.loop import Agent
from grove.config import Settings
from grove.goals.judge import Judge
from grove.goals.runner import GoalRunner
from grove.goals.store import GoalStore
from grove.llm.script import ScriptModel
from grove.llm.types import Message, ToolSchema
from grove.runtime.assemble import open_agent
from grove.runtime.profile import Profile
from grove.store.sessions import SessionStore


def verdict(v: str, reason: str) -> str:
    return json.dumps({"verdict": v, "reason": reason})


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def new_agent(
    settings: Settings, store: SessionStore, workspace: Path, model: ScriptModel, resume: str | None = None
) -> Agent:
    return open_agent(settings, Profile(resume=resume, workspace=workspace, model=model), store=store)


def tool_texts(messages: list[Message]) -> list[str]:
    return [str(m.get("content") or "") for m in messages if m["role"] == "tool"]


def test_the_judge_checks_the_work_with_read_only_tools_confined_to_the_workspace(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    (workspace / "result.txt").write_text("answer = 42\n")
    (workspace.parent / "outside.txt").write_text("OUTSIDE-SECRET\n")
    (workspace / "link.txt").symlink_to(workspace.parent / "outside.txt")
    agent = new_agent(settings, store, workspace, ScriptModel(["I wrote result.txt with the answer"]))
    judge_model = ScriptModel(
        [
            call("list_files"),
            call("read_file", path="result.txt"),
            call("read_file", path="../outside.txt"),
            call("read_file", path="link.txt"),
            call("write_file", path="result.txt", content="forged"),
            call("search_files", pattern="answer"),
            verdict("done", "result.txt holds answer = 42"),
        ]
    )
    events: list[str] = []
    goal = GoalRunner(agent, Judge(judge_model), GoalStore(store.db), events.append).start(
        "write the answer to result.txt"
    )
    assert 'judge checks: read_file(path="result.txt")' in events  # the user sees what the judge checked
    assert goal.status == "done" and goal.reason == "result.txt holds answer = 42"
    offered = {t["function"]["name"] for t in judge_model.requests[0][1]}
    assert offered == {"read_file", "search_files", "list_files"}  # no writes, no terminal
    results = tool_texts(judge_model.requests[-1][0])
    assert "result.txt" in results[0]
    assert "answer = 42" in results[1]
    assert "outside the workspace" in results[2] and "outside the workspace" in results[3]
    assert "unknown tool" in results[4] or "not available" in results[4]
    assert "result.txt:1:answer = 42" in results[5]
    everything = json.dumps(judge_model.requests)
    assert "OUTSIDE-SECRET" not in everything
    assert (workspace / "result.txt").read_text() == "answer = 42\n"


def test_the_judge_runs_out_of_tool_steps_and_must_answer(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    agent = new_agent(settings, store, workspace, ScriptModel(["did it"]))

    def judge_reply(messages: list[Message], tools: list[ToolSchema]) -> object:
        return call("list_files") if tools else verdict("continue", "could not tell")

    judge_model = ScriptModel(judge_reply)
    goal = GoalRunner(agent, Judge(judge_model, max_steps=3), GoalStore(store.db)).start("x", max_turns=1)
    assert [v.verdict for v in goal.verdicts] == ["continue"]
    assert judge_model.calls == 4 and judge_model.requests[-1][1] == []  # 3 tool steps, then a text-only call


def test_the_judge_reads_the_whole_history_of_the_goal(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    filler = "lorem ipsum " * 1200  # turn 2 alone is longer than the old 8K window
    agent = new_agent(
        settings, store, workspace, ScriptModel(["Found it. FACT-ONE: the service port is 8123.", filler])
    )
    judge_model = ScriptModel([verdict("continue", "write it down"), verdict("done", "ok")])
    GoalRunner(agent, Judge(judge_model), GoalStore(store.db)).start("find the port", max_turns=3)
    seen = judge_model.requests[-1][0][1]["content"]
    assert "FACT-ONE: the service port is 8123" in seen  # turn 1, judged at turn 2
    assert "find the port" in seen and "Continuing toward the goal: write it down" in seen


def test_a_long_history_is_compressed_to_fit_keeping_facts_and_the_latest_turn() -> None:
    from grove.goals.history import render_history

    messages: list[Message] = []
    for i in range(40):
        messages.append({"role": "user", "content": f"[grove goal g-1 · turn {i + 1}] step {i}"})
        args = json.dumps({"path": f"src/mod_{i}.py", "content": "x = 1\n" * 200})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{i}", "type": "function", "function": {"name": "write_file", "arguments": args}}
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "name": "write_file", "content": "wrote"})
        messages.append({"role": "assistant", "content": f"turn {i} done. " + "detail " * 500})
    text = render_history(messages, budget=20_000)
    assert len(text) <= 20_000
    assert "step 0" in text  # the first request
    assert all(f"src/mod_{i}.py" in text for i in range(40))  # every file written, as a fact
    assert "turn 39 done. " + "detail " * 400 in text  # the latest turn in full
    assert "earlier turns" in text.lower()
    short = render_history(messages[-8:], budget=20_000)
    assert "earlier turns" not in short.lower() and "turn 38 done." in short  # fits: nothing folded


def _user_texts(store: SessionStore, session_id: str) -> list[str]:
    return [str(m["content"]) for m in store.messages(session_id, active_only=False) if m["role"] == "user"]


def _killing_worker(kill_on_call: int) -> ScriptModel:
    def reply(messages: list[Message], tools: list[ToolSchema]) -> str:
        if worker.calls == kill_on_call:
            raise SystemExit("killed mid-turn")
        return f"worked ({worker.calls})"

    worker = ScriptModel(reply)
    return worker


@pytest.mark.parametrize("killed_turn", [1, 2])
def test_a_killed_turn_is_not_sent_again_on_resume(
    settings: Settings, store: SessionStore, workspace: Path, killed_turn: int
) -> None:
    agent = new_agent(settings, store, workspace, _killing_worker(kill_on_call=killed_turn))
    goals = GoalStore(store.db)
    with pytest.raises(SystemExit):
        GoalRunner(agent, Judge(ScriptModel([verdict("continue", "next part")])), goals).start(
            "build the thing", max_turns=6
        )
    agent.close()
    [stored] = goals.list()
    assert stored.turns_used == killed_turn - 1 and not stored.awaiting_verdict

    store2 = SessionStore.open(settings.db_path)
    agent2 = new_agent(
        settings, store2, workspace, ScriptModel(lambda m, t: "resumed work"), stored.session_id
    )
    judge2 = ScriptModel([verdict("continue", "finish up"), verdict("done", "built")])
    goal = GoalRunner(agent2, Judge(judge2), GoalStore(store2.db)).run(stored.id)
    assert goal.status == "done" and goal.turns_used == killed_turn + 1
    texts = _user_texts(store2, stored.session_id)
    assert len(texts) == len(set(texts)), texts  # no request was sent twice
    # the judge is told the killed turn never finished
    assert "cut off" in judge2.requests[0][0][1]["content"]
    store2.db.close()


def test_a_chat_message_equal_to_the_goal_is_not_taken_for_a_killed_turn(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    agent = new_agent(settings, store, workspace, ScriptModel(lambda m, t: "ok"))
    agent.run_turn("tidy the repo")  # the user asked in plain chat first
    goal = GoalRunner(agent, Judge(ScriptModel([verdict("done", "tidy")])), GoalStore(store.db)).start(
        "tidy the repo"
    )
    assert goal.turns_used == 1 and _user_texts(store, agent.session_id) == ["tidy the repo", "tidy the repo"]


def test_chat_goal_uses_the_configured_judge_model(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    from grove.cli.goal import chat_goal
    from grove.runtime import Profile, Session

    judge_file = workspace.parent / "judge.yaml"
    judge_file.write_text(f"- {json.dumps(verdict('done', 'the configured judge agrees'))}\n")
    settings.goals.judge_model = f"script:{judge_file}"
    chat_model = ScriptModel(lambda m, t: "did the work")  # would never give a verdict
    session = Session.open(settings, Profile(workspace=workspace, model=chat_model), store=store)
    said: list[str] = []
    chat_goal("do the work", session, said.append, lambda sid: session)
    assert "[done]" in said[-1] and "the configured judge agrees" in said[-1]
    assert chat_model.calls == 1  # the chat's model worked; it did not judge
    session.close()


def test_an_answer_cut_for_the_judge_keeps_its_fact_sentences() -> None:
    from grove.goals.history import render_turn

    answer = "All went fine. " * 250 + "We chose port 8123 because 80 is taken. " + "All went fine. " * 50
    text = render_turn([{"role": "user", "content": "pick a port"}, {"role": "assistant", "content": answer}])
    assert len(text) < 3_400 and "We chose port 8123 because 80 is taken." in text


def test_the_judges_calls_count_in_the_sessions_usage(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    worker = ScriptModel(["one", "two"])
    agent = new_agent(settings, store, workspace, worker)
    judge_model = ScriptModel([call("list_files"), verdict("continue", "more"), verdict("done", "ok")])
    GoalRunner(agent, Judge(judge_model), GoalStore(store.db)).start("count me", max_turns=3)
    info = store.get_session(agent.session_id)
    assert info.model_calls == worker.calls + judge_model.calls == 5
    (agent_tokens,) = store.db.conn.execute(
        "SELECT SUM(prompt_tokens) FROM messages WHERE session_id = ?", (agent.session_id,)
    ).fetchone()
    assert info.prompt_tokens > agent_tokens  # the judge's tokens are in the session's total too
