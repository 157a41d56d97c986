"""Pursuing a goal: a turn, then the judge, then the next turn, until done, blocked, out of turns, or stopped.

Every step is committed (turn counted, verdict recorded) before the next one starts, so a restart resumes at
the right turn: a turn that ran but was never judged is judged first, and a turn whose request is in state.db
but which the process never finished (killed mid-turn) is counted and judged as it stands, never sent again.
"""

from __future__ import annotations

from collections.abc import Callable

from grove.agent.loop import Agent, TurnResult
from grove.goals.history import goal_messages, render_history
from grove.goals.judge import Judge, JudgeError
from grove.goals.store import ACTIVE, BLOCKED, DONE, EXHAUSTED, PAUSED, Goal, GoalStore
from grove.llm.errors import ModelError
from grove.llm.types import Completion, Message
from grove.security.secrets.boundary import redact_message

CONTINUE = "[grove goal {id} · turn {turn}] Continuing toward the goal: {reason}"
CUT_OFF = (
    "turn {turn} was cut off: the process stopped before grove recorded it as finished; judge what it did"
)


def first_message(goal: Goal) -> str:
    if not goal.criteria:
        return goal.text
    criteria = "\n".join(f"- {c}" for c in goal.criteria)
    return f"{goal.text}\n\nAcceptance criteria:\n{criteria}"


def continue_message(goal: Goal) -> str:
    reason = goal.verdicts[-1].reason if goal.verdicts else ""
    text = CONTINUE.format(id=goal.id, turn=goal.turns_used + 1, reason=reason or "keep going")
    return text + f"\n(goal: {goal.text})"


def turn_message(goal: Goal) -> str:
    """The request that starts the goal's next turn (deterministic, so a resumed run can recognise it)."""
    return first_message(goal) if goal.turns_used == 0 else continue_message(goal)


def started_unfinished(goal: Goal, history: list[Message]) -> bool:
    """Whether the goal's next turn already began: its request is the last request of the goal's history (the
    process was killed during the turn, before it was counted)."""
    requests = [m for m in history if m.get("role") == "user"]
    if not requests:
        return False
    expected = redact_message({"role": "user", "content": turn_message(goal)}).get("content")
    return requests[-1].get("content") == expected


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
        if judge.workspace is None:  # the judge checks the work where the agent did it
            judge.workspace = agent.ctx.workspace
            judge.tool_settings = agent.ctx.settings
        judge.on_check = self.on_event
        judge.on_usage = self._count  # the judge's calls are part of what the goal cost

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
                note = ""
                if not goal.awaiting_verdict:
                    if goal.turns_used >= goal.max_turns:
                        return self._finish(goal, EXHAUSTED, f"turn budget used up ({goal.max_turns} turns)")
                    if started_unfinished(goal, self._history(goal)):
                        note = CUT_OFF.format(turn=goal.turns_used + 1)
                        goal = self.goals.turn_done(goal.id)
                        self.on_event(f"goal {goal.id}: {note}")
                    else:
                        self.on_event(f"goal {goal.id}: turn {goal.turns_used + 1} of {goal.max_turns}")
                        result = self.turn(turn_message(goal))
                        goal = self.goals.turn_done(goal.id)
                        self.on_event(f"answer: {_clip(' '.join(result.answer.split()), 400) or '(no text)'}")
                        if result.interrupted:
                            return self._finish(goal, PAUSED, "stopped by the user")
                        note = _claims_note(result)
                work = render_history(self._history(goal), self.judge.history_budget())
                verdict = self.judge.judge(goal, work, note)
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

    def _count(self, completion: Completion) -> None:
        try:
            from grove.llm.pricing import cost_usd
        except ImportError:  # pricing table not available: cost unknown, tokens still counted
            cost = 0.0
        else:
            cost = cost_usd(completion.model, completion.usage)
        self.agent.store.add_usage(self.agent.session_id, completion.usage, cost)

    def _history(self, goal: Goal) -> list[Message]:
        """Everything since the goal began in this session, compressed-away turns included (from state.db)."""
        return goal_messages(self.agent.store, self.agent.session_id, goal.created_at)

    def _finish(self, goal: Goal, status: str, reason: str) -> Goal:
        goal = self.goals.set_status(goal.id, status, reason)
        self.on_event(f"goal {goal.id} {status}: {reason}")
        return goal


def _claims_note(result: object) -> str:
    """What the turn's tool calls contradict or cannot show of its answer (grove.claims), for the judge to weigh."""
    from grove.claims.turn import marks

    return marks(list(getattr(result, "claims", None) or []))
