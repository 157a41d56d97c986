"""Pursuing a goal: a turn, then the judge, then the next turn, until done, blocked, out of turns, or stopped.

Every step is committed (turn counted, verdict recorded) before the next one starts, so a restart resumes at
the right turn: a turn that ran but was never judged is judged first.
"""

from __future__ import annotations

from collections.abc import Callable

from grove.agent.loop import Agent, TurnResult
from grove.context.prune import short_args
from grove.goals.judge import Judge, JudgeError
from grove.goals.store import ACTIVE, BLOCKED, DONE, EXHAUSTED, PAUSED, Goal, GoalStore
from grove.llm.errors import ModelError
from grove.llm.types import Message

CONTINUE = "[grove goal {id}] Continuing toward the goal: {reason}"
WORK_CHARS = 8_000


def first_message(goal: Goal) -> str:
    if not goal.criteria:
        return goal.text
    criteria = "\n".join(f"- {c}" for c in goal.criteria)
    return f"{goal.text}\n\nAcceptance criteria:\n{criteria}"


def continue_message(goal: Goal) -> str:
    reason = goal.verdicts[-1].reason if goal.verdicts else ""
    return CONTINUE.format(id=goal.id, reason=reason or "keep going") + f"\n(goal: {goal.text})"


def latest_work(messages: list[Message]) -> str:
    """The last turn as the judge sees it: the request, what the agent did (calls and results) and its answer."""
    start = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
    lines: list[str] = []
    for m in messages[start:]:
        role, text = m.get("role"), str(m.get("content") or "")
        if role == "user":
            lines.append(f"REQUEST: {_clip(text, 1500)}")
        elif role == "tool":
            lines.append(f"RESULT ({m.get('name') or 'tool'}): {_clip(text, 600)}")
        elif role == "assistant":
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                lines.append(f"CALL {fn.get('name', '?')}({short_args(fn.get('arguments') or '')})")
            if text:
                lines.append(f"AGENT: {_clip(text, 3000)}")
    out = "\n".join(lines)
    return out if len(out) <= WORK_CHARS else "[…earlier steps omitted…]\n" + out[-WORK_CHARS:]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class GoalRunner:
    def __init__(
        self,
        agent: Agent,
        judge: Judge,
        goals: GoalStore,
        on_event: Callable[[str], None] | None = None,
        *,
        turn: Callable[[str], TurnResult] | None = None,
    ) -> None:
        """`turn` runs one turn of the agent's session (default `agent.run_turn`; the runtime passes its own, so
        the loops around turns run between goal turns too)."""
        self.agent = agent
        self.judge = judge
        self.goals = goals
        self.on_event = on_event or (lambda _text: None)
        self.turn = turn or agent.run_turn

    def start(self, text: str, criteria: list[str] | None = None, max_turns: int = 20) -> Goal:
        goal = self.goals.create(text, list(criteria or []), max_turns, self.agent.session_id)
        self.on_event(f"goal {goal.id}: {text} (up to {max_turns} turns)")
        return self.run(goal.id)

    def run(self, goal_id: str) -> Goal:
        """Pursue the goal from wherever it stands; returns it in its final (or paused) state."""
        goal = self.goals.get(goal_id)
        if goal.session_id != self.agent.session_id:
            goal = self.goals.set_session(goal.id, self.agent.session_id)
        goal = self.goals.set_status(goal.id, ACTIVE)
        try:
            while True:
                goal = self.goals.get(goal.id)
                if goal.status != ACTIVE:  # paused from elsewhere (`grove goal pause`, another terminal)
                    return goal
                if not goal.awaiting_verdict:
                    if goal.turns_used >= goal.max_turns:
                        return self._finish(goal, EXHAUSTED, f"turn budget used up ({goal.max_turns} turns)")
                    message = first_message(goal) if goal.turns_used == 0 else continue_message(goal)
                    self.on_event(f"goal {goal.id}: turn {goal.turns_used + 1} of {goal.max_turns}")
                    result = self.turn(message)
                    goal = self.goals.turn_done(goal.id)
                    self.on_event(f"answer: {_clip(' '.join(result.answer.split()), 400) or '(no text)'}")
                    if result.interrupted:
                        return self._finish(goal, PAUSED, "stopped by the user")
                verdict = self.judge.judge(goal, latest_work(self.agent.messages))
                verdict.turn = goal.turns_used
                goal = self.goals.add_verdict(goal.id, verdict)
                self.on_event(f"judge: {verdict.verdict} — {verdict.reason}")
                if verdict.verdict == "done":
                    return self._finish(goal, DONE, verdict.reason)
                if verdict.verdict == "blocked":
                    return self._finish(goal, BLOCKED, verdict.reason)
        except JudgeError as e:
            return self._finish(goal, PAUSED, str(e))
        except ModelError as e:
            return self._finish(goal, PAUSED, f"model error: {e}")
        except KeyboardInterrupt:
            return self._finish(goal, PAUSED, "stopped by the user")

    def _finish(self, goal: Goal, status: str, reason: str) -> Goal:
        goal = self.goals.set_status(goal.id, status, reason)
        self.on_event(f"goal {goal.id} {status}: {reason}")
        return goal
