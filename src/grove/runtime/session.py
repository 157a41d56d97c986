"""One session of any entrance: an agent opened for a profile, the loops around its turns (self-review, curator,
goal judge), one event stream, and cleanup. Front ends call `run_turn`, `run_plan` or `run_goal` and render."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from grove.agent.events import AgentEvents
from grove.agent.loop import Agent, TurnResult
from grove.config import Settings
from grove.runtime.assemble import open_agent, open_store
from grove.runtime.profile import Profile
from grove.runtime.stream import EventStream
from grove.store.sessions import SessionStore

if TYPE_CHECKING:
    from grove.goals.store import Goal
    from grove.llm.types import Model
    from grove.runtime.reviews import ReviewScheduler


class Session:
    """Open with `Session.open(settings, profile, sink)`; `close()` when done (waits for a review if asked)."""

    def __init__(
        self, settings: Settings, profile: Profile, agent: Agent, stream: EventStream, store: SessionStore
    ) -> None:
        self.settings = settings
        self.profile = profile
        self.agent = agent
        self.stream = stream
        self.store = store
        self.reviews = _review_scheduler(settings, profile, agent, stream)

    @classmethod
    def open(
        cls,
        settings: Settings,
        profile: Profile,
        sink: AgentEvents | None = None,
        store: SessionStore | None = None,
    ) -> Session:
        stream = sink if isinstance(sink, EventStream) else EventStream(sink)
        store = store or open_store(settings)
        agent = open_agent(settings, profile, stream, store)
        session = cls(settings, profile, agent, stream, store)
        if profile.curator:
            session._start_curator()
        return session

    @property
    def id(self) -> str:
        return self.agent.session_id

    # -- the three ways to drive a session ---------------------------------------------------------------------
    def run_turn(self, text: str) -> TurnResult:
        """One user turn; after a delivered answer the self-review is scheduled when its triggers fire."""
        self._before()
        result = self.agent.run_turn(text)
        self._after(result)
        return result

    def run_plan(self, text: str) -> TurnResult:
        """Plan then act with code skills, as one turn from the user's point of view."""
        from grove.plan.loop import run_plan_turn

        self._before()
        result = run_plan_turn(self.agent, text)
        self._after(result)
        return result

    def run_goal(
        self,
        text: str | None = None,
        *,
        goal_id: str | None = None,
        criteria: list[str] | None = None,
        max_turns: int = 20,
        judge_model: Model | None = None,
    ) -> Goal:
        """Start a goal (`text`) or carry one on (`goal_id`): turns until the judge says done. Every turn is an
        ordinary turn of this session, so reviews are scheduled between them as after any other turn."""
        from grove.goals.judge import Judge
        from grove.goals.runner import GoalRunner
        from grove.goals.store import GoalStore

        runner = GoalRunner(
            self.agent,
            Judge(judge_model or self.agent.model),
            GoalStore(self.store.db),
            self.stream.on_notice,
            turn=self.run_turn,
        )
        if goal_id is not None:
            return runner.run(goal_id)
        return runner.start(text or "", criteria, max_turns)

    def compress(self) -> None:
        self.agent.compress()

    # -- around turns -----------------------------------------------------------------------------------------
    def _before(self) -> None:
        if self.reviews is not None:
            self.reviews.before_turn()  # the user comes first: a running review waits

    def _after(self, result: TurnResult) -> None:
        if self.reviews is not None and not result.interrupted:
            self.reviews.after_turn(self.agent, result)

    def _start_curator(self) -> None:
        from grove.learning.curator import run_curator_if_due
        from grove.memory.prompt import memory_notice

        notice = memory_notice(self.settings)
        if notice:
            self.stream.on_notice(notice)
        if self.settings.learning.curator:
            threading.Thread(
                target=run_curator_if_due, args=(self.settings,), name="grove-curator", daemon=True
            ).start()

    def review_pending(self) -> bool:
        return self.reviews is not None and self.reviews.pending()

    def close(self, *, wait_review: bool = False) -> None:
        self.agent.close()
        if wait_review and self.reviews is not None:
            self.reviews.wait()


def _review_scheduler(
    settings: Settings, profile: Profile, agent: Agent, stream: EventStream
) -> ReviewScheduler | None:
    """The self-review after turns, by the profile's mode. A scripted model (a test double, a demo) has no
    reviewer unless `learning.review_model` names one: its queued replies are the session's, not a reviewer's."""
    if profile.review == "off" or profile.source == "review":
        return None
    spec = settings.learning.review_model or agent.model.name
    if spec.startswith("script:") and not settings.learning.review_model:
        return None
    from grove.runtime.reviews import ReviewScheduler

    def report(rep: object) -> None:
        stream.on_notice(rep.render().splitlines()[0])  # type: ignore[attr-defined]

    return ReviewScheduler(
        settings, on_report=report, detach_model=spec if profile.review == "detached" else None
    )
