"""One session of any entrance: an agent opened for a profile, the loops around its turns (self-review, curator,
goal judge), one event stream, and cleanup. Front ends call `run_turn`, `run_plan` or `run_goal` and render."""

from __future__ import annotations

import dataclasses
import subprocess
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from grove.agent.events import AgentEvents
from grove.agent.loop import Agent, TurnResult
from grove.config import Settings
from grove.llm.profiles import needs_for
from grove.runtime.assemble import open_agent, open_store
from grove.runtime.profile import Profile
from grove.runtime.stream import EventStream
from grove.store.sessions import SessionStore

if TYPE_CHECKING:
    from grove.goals.store import Goal
    from grove.learning.review import ReviewReport
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
        self._curator_process: subprocess.Popen | None = None
        from grove.config.learning import learning_config
        from grove.learning.failure_memory import FailureMemory

        # notes of failed approaches: shown with a similar task's first turn, taken from each turn (learning's)
        learns = self._grades and profile.review != "off" and learning_config(settings).review
        earlier = sum(1 for m in agent.messages if m.get("role") == "user")  # a resumed session's turns
        self.failures = FailureMemory(settings.home, agent.session_id, learns, turns=earlier)

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
        if agent.tools.get("delegate") is not None:
            from grove.runtime.children import attach_children

            attach_children(session, cls.open)  # the runner the `delegate` tool calls
        if profile.curator is True:
            session._start_curator()
        return session

    @classmethod
    def open_or_resume(
        cls,
        settings: Settings,
        profile: Profile,
        previous: str | None,
        sink: AgentEvents | None = None,
        store: SessionStore | None = None,
    ) -> tuple[Session, bool]:
        """The session `previous` names, resumed (an entrance's stored conversation), or a new one when there is
        none or it was deleted since. Returns the session and whether it was resumed."""
        from grove.store.sessions import SessionNotFound

        if previous:
            try:
                return cls.open(settings, dataclasses.replace(profile, resume=previous), sink, store), True
            except SessionNotFound:  # the stored session was deleted: start a new one
                pass
        return cls.open(settings, dataclasses.replace(profile, resume=None), sink, store), False

    @property
    def id(self) -> str:
        return self.agent.session_id

    # -- the three ways to drive a session ---------------------------------------------------------------------
    def run_turn(
        self,
        text: str,
        images: list[dict[str, Any]] | None = None,
        *,
        tool_results: dict[str, str] | None = None,
    ) -> TurnResult:
        """One user turn (with image parts, if any), or the results of the client's tool calls the last turn
        ended on (`tool_results`); after a delivered answer the self-review is scheduled when its triggers fire."""
        self._before(text)
        try:
            asked = self.failures.before(text) if text else text
            result = self.agent.run_turn(asked, images, tool_results=tool_results)
        finally:
            self._resume_reviews()  # an interrupted or failed turn must not leave a running review paused
        self._after(result)
        self.failures.after(result)
        return result

    def run_plan(self, text: str) -> TurnResult:
        """Plan then act with code skills, as one turn from the user's point of view."""
        from grove.plan.loop import run_plan_turn

        self._before(text)
        try:
            result = run_plan_turn(self.agent, text)
        finally:
            self._resume_reviews()
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
        start = self._last_message_id()
        goal = runner.run(goal_id) if goal_id is not None else runner.start(text or "", criteria, max_turns)
        if self._grades:
            from grove.learning.grades import grade_goal

            grade_goal(self.store.db, self.id, start, goal.status, goal.reason or "")
        return goal

    def compress(self) -> None:
        self.agent.compress()

    # -- around turns -----------------------------------------------------------------------------------------
    @property
    def _grades(self) -> bool:
        """Only a working session grades the skills it used (a reviewer reading skills is not using them)."""
        return self.profile.source != "review"

    def _last_message_id(self) -> int:
        with self.store.db.lock:
            row = self.store.db.conn.execute(
                "SELECT max(id) FROM messages WHERE session_id = ?", (self.id,)
            ).fetchone()
        return int(row[0] or 0)

    def _before(self, text: str) -> None:
        if self.reviews is not None:
            self.reviews.before_turn()  # the user comes first: a running review waits
        if self._grades and text and not text.startswith("[grove"):
            from grove.learning.grades import note_user_message

            note_user_message(self.store.db, self.id, text)

    def _resume_reviews(self) -> None:
        if self.reviews is not None:
            self.reviews.resume()

    def _after(self, result: TurnResult) -> None:
        if not result.interrupted and self.profile.source != "review":
            self._check_claims(result)
        if result.interrupted and self.agent.tools.get("delegate") is not None:
            from grove.runtime.children import stop_children

            stop_children(self)  # its children stop too, before their next model call
        if self._grades:
            from grove.learning.grades import grade_turn

            grade_turn(self.store.db, self.id, result, self._last_message_id())
        if self.reviews is not None and not result.interrupted:
            self.reviews.after_turn(self.agent, result)
        if self._grades and self.profile.curator != "detached":
            from grove.embeddings.indexer import kick

            # meaning search: the turn's messages embedded in the background; a one-shot process (its curator
            # detached) would exit mid-way, so there the next search embeds them
            kick(self.store.db.path)

    def _check_claims(self, result: TurnResult) -> None:
        """The answer's claims about its work against the turn's tool record: kept with the session, and what the
        record contradicts or cannot show told to the user as a notice (every entrance renders notices)."""
        from grove.claims.store import save_verdicts
        from grove.claims.turn import check_answer, marks

        result.claims = check_answer(result.answer, result.tool_calls)
        save_verdicts(self.store.db, self.id, self._last_message_id(), result.claims)
        line = marks(result.claims)
        if line:
            self.stream.on_notice(line)

    def _start_curator(self) -> None:
        from grove.learning.curator import run_curator_if_due
        from grove.memory.prompt import memory_notice
        from grove.runtime.review_probes import probes_for

        notice = memory_notice(self.settings)
        if notice:
            self.stream.on_notice(notice)
        if self.settings.learning.curator:
            threading.Thread(
                target=run_curator_if_due,
                args=(self.settings, self._curator_factory()),
                # idle means: before this chat opened; merges replayed on probes when learning.skill_probes
                kwargs={"opening": self.id, "probes": probes_for(self.settings)},
                name="grove-curator",
                daemon=True,
            ).start()

    def _curator_spec(self) -> str | None:
        from grove.learning.curator import curator_model_spec

        asked = self.profile.model if isinstance(self.profile.model, str) else None  # a spec, not a Model
        return curator_model_spec(self.settings, asked or self.agent.model.name)

    def _curator_factory(self) -> Callable[[], Model] | None:
        spec = self._curator_spec()
        if spec is None:
            return None

        def make() -> Model:
            from grove.runtime.assemble import build_router

            return build_router(self.settings, spec, AgentEvents())

        return make

    def _spawn_curator(self) -> None:
        """A one-shot entrance: the curator runs detached after the answer, at most once per interval."""
        from grove.learning.curator import curator_due, has_curatable_skills

        if not self.settings.learning.curator or not has_curatable_skills(self.settings):
            return
        if not curator_due(self.settings, self.store.db, require_idle=False)[0]:
            return
        from grove.runtime.background import spawn_curator

        self._curator_process = spawn_curator(self.settings, self._curator_spec())

    def review_pending(self) -> bool:
        return self.reviews is not None and self.reviews.pending()

    def close(self, *, wait_review: bool = False) -> None:
        self.agent.close()
        if self.profile.curator == "detached":
            self._spawn_curator()
        if wait_review and self.reviews is not None:
            self.reviews.wait()
        if wait_review and self._curator_process is not None:
            self._curator_process.wait()


def _review_scheduler(
    settings: Settings, profile: Profile, agent: Agent, stream: EventStream
) -> ReviewScheduler | None:
    """The self-review after turns, by the profile's mode. A scripted model (a test double, a demo) has no
    reviewer unless `learning.review_model` names one: its queued replies are the session's, not a reviewer's."""
    if profile.review == "off" or profile.source == "review":
        return None
    spec = settings.learning.review_model or agent.model.name
    if not settings.learning.review_model and not needs_for(spec).own_reviewer:
        return None
    from grove.runtime.reviews import ReviewScheduler

    def report(rep: ReviewReport) -> None:
        stream.on_notice(rep.render().splitlines()[0])

    return ReviewScheduler(
        settings, on_report=report, detach_model=spec if profile.review == "detached" else None
    )
