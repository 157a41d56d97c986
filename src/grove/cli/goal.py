"""`grove goal "TEXT"`: work toward a goal turn after turn until a judge says done; `grove goal resume ID`,
`grove goal status [ID]`, `grove goal pause ID`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load, split_csv

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.goals.store import Goal
    from grove.runtime import Session
    from grove.store.sessions import SessionStore

ACTIONS = ("resume", "status", "pause")


def goal(
    words: list[str] = typer.Argument(
        ...,
        help='The goal text, or: resume ID | status [ID] | pause ID. Example: grove goal "make tests pass"',
    ),
    max_turns: int | None = typer.Option(
        None, "--max-turns", "-n", min=1, help="Turn budget (default 20; on resume: turns from now)."
    ),
    criteria: list[str] = typer.Option([], "--criteria", "-c", help="An acceptance criterion (repeatable)."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec for the agent."),
    judge_model: str | None = typer.Option(
        None, "--judge-model", help="Model spec for the judge (default: --model)."
    ),
    toolsets: str | None = typer.Option(None, "--toolsets", "-t", help="Comma-separated toolsets."),
    allow_terminal: bool = typer.Option(False, "--allow-terminal", help="Let the model run shell commands."),
    as_json: bool = typer.Option(False, "--json", help="Print the goal as one JSON object at the end."),
) -> None:
    """Pursue a goal: after every turn a judge model decides done, continue or blocked."""
    from grove.goals.store import DONE, EXHAUSTED, GoalStore
    from grove.llm.spec import build_model
    from grove.runtime.assemble import open_store

    settings = load()
    store = open_store(settings)
    goals = GoalStore(store.db)
    action, rest = (words[0], words[1:]) if words[0] in ACTIONS else (None, words)
    if action == "status":
        if rest:
            _show(goals.get(rest[0]), as_json)
        else:
            for g in goals.list():
                print(f"{g.id}  {g.status:<9} {g.turns_used}/{g.max_turns}  {g.text[:70]}")
        return
    if action == "pause":
        if not rest:
            fail("say which goal: grove goal pause ID", code=2)
        _show(goals.set_status(goals.resolve_id(rest[0]), "paused", "paused by the user"), as_json)
        return
    if action == "resume":
        if not rest:
            fail("say which goal: grove goal resume ID (grove goal status lists them)", code=2)
        current = goals.get(rest[0])
        if current.status == DONE:
            fail(f"goal {current.id} is already done", code=2)
        if max_turns:
            goals.set_max_turns(current.id, current.turns_used + max_turns)
        elif current.status == EXHAUSTED or current.turns_used >= current.max_turns:
            fail(
                f"goal {current.id} used its {current.max_turns} turns; resume with --max-turns N for more", 2
            )
        resume_session: str | None = current.session_id
    else:
        text = " ".join(rest).strip()
        if not text:
            fail('give the goal text: grove goal "make the tests pass"', code=2)
        resume_session = None
    session = _session(settings, store, model, toolsets, allow_terminal, resume_session)
    judge_spec = judge_model or settings.goals.judge_model
    judge = build_model(judge_spec, settings, long_lived=True) if judge_spec else None
    try:
        if action == "resume":
            final = session.run_goal(goal_id=current.id, judge_model=judge)
        else:
            final = session.run_goal(
                text, criteria=criteria, max_turns=max_turns or settings.goals.max_turns, judge_model=judge
            )
    finally:
        session.close(wait_review=True)  # a review started after the last turn finishes before we exit
    _show(final, as_json)
    if final.status != DONE:
        raise typer.Exit(1)


def _session(
    settings: Settings,
    store: SessionStore,
    model: str | None,
    toolsets: str | None,
    allow_terminal: bool,
    resume: str | None,
) -> Session:
    from grove.cli.output import TerminalEvents
    from grove.cli.run import terminal_approver
    from grove.runtime import Profile, Session

    class GoalEvents(TerminalEvents):
        def on_notice(self, text: str) -> None:  # goal progress is the output of this command: stdout
            print(f"· {text}", flush=True)

    profile = Profile(
        source="goal",
        model=model,
        toolsets=split_csv(toolsets),
        resume=resume,
        allow_terminal=allow_terminal,
        approver=terminal_approver(interactive=sys.stdin.isatty()),
        long_lived=True,
        review="thread",
        curator="detached",  # after the goal, when due (at most once per learning.curator_interval_days)
    )
    return Session.open(settings, profile, GoalEvents(stream_text=False), store)


def _show(g: Goal, as_json: bool) -> None:
    if as_json:
        print(json.dumps(g.as_dict(), ensure_ascii=False))
        return
    print(f"goal {g.id} · {g.status} · {g.turns_used}/{g.max_turns} turns · session {g.session_id}")
    print(f"  {g.text}")
    for c in g.criteria:
        print(f"  - {c}")
    for v in g.verdicts:
        print(f"  turn {v.turn}: {v.verdict} — {v.reason}")
    if g.reason:
        print(f"  reason: {g.reason}")


def chat_goal(
    arg: str,
    session: Session,
    say: Callable[[str], None],
    switch: Callable[[str], Session],
) -> None:
    """`/goal TEXT | status [ID] | pause [ID] | resume [ID]` inside `grove chat`; the judge is `goals.judge_model`,
    else the chat's model."""
    from grove.goals.store import DONE, EXHAUSTED, GoalStore
    from grove.llm.spec import build_model

    goals = GoalStore(session.store.db)
    action, _, rest = arg.partition(" ")
    rest = rest.strip()
    if action in ("", "status"):
        found = [goals.get(rest)] if rest else goals.list(limit=5, session_id=session.id)
        if not found:
            say("no goal in this session; start one with /goal TEXT")
        for g in found:
            say(_describe(g))
        return
    if action in ("pause", "resume"):
        open_goals = [g for g in goals.list(limit=20, session_id=session.id) if g.status != DONE]
        if not rest and not open_goals:
            say("no open goal in this session; /goal status ID shows any goal")
            return
        target = goals.get(rest) if rest else open_goals[0]
        if action == "pause":
            say(_describe(goals.set_status(target.id, "paused", "paused by the user")))
            return
        if target.status == DONE:
            say(f"goal {target.id} is already done")
            return
        if target.status == EXHAUSTED or target.turns_used >= target.max_turns:
            goals.set_max_turns(target.id, target.turns_used + session.settings.goals.max_turns)
        if target.session_id and target.session_id != session.id:
            session = switch(target.session_id)
    spec = session.settings.goals.judge_model
    judge = build_model(spec, session.settings, long_lived=True) if spec else None
    if action == "resume":
        final = session.run_goal(goal_id=target.id, judge_model=judge)
    else:
        final = session.run_goal(arg, max_turns=session.settings.goals.max_turns, judge_model=judge)
    say(_describe(final))


def _describe(g: Goal) -> str:
    last = f" · last verdict: {g.verdicts[-1].verdict} — {g.verdicts[-1].reason}" if g.verdicts else ""
    reason = f" · {g.reason}" if g.reason else ""
    return f"goal {g.id} [{g.status}] {g.turns_used}/{g.max_turns} turns: {g.text[:80]}{last}{reason}"
