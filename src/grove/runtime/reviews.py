"""When reviews run: after a delivered answer, in a background thread, never delaying the user.

The front end calls `before_turn()` when the user sends something (the reviewer pauses before its next model
call: the user has priority) and `after_turn(agent, result)` once the answer is shown. `wait(timeout)` is for
`grove run --wait-review`; without it a one-shot run exits and its pending review is dropped.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from grove.config.learning import learning_config
from grove.learning.runs import last_reviewed_message
from grove.learning.triggers import Decision, decide
from grove.llm.types import Model

if TYPE_CHECKING:
    # the review machinery loads only when a review runs in this process, not for every one-shot answer
    from grove.learning.review import ReviewReport


class ReviewScheduler:
    def __init__(
        self,
        settings: Any,
        model_factory: Callable[[], Model] | None = None,
        *,
        on_report: Callable[[ReviewReport], None] | None = None,
        detach_model: str | None = None,
    ) -> None:
        """`model_factory`: the reviewer's model (default: a router for `learning.review_model`, else the
        session's model). `detach_model`: run reviews in a detached process with this model spec (one-shot
        `grove run`) instead of a thread of this process (`grove chat`, the gateway)."""
        self.settings = settings
        self.model_factory = model_factory
        self.on_report = on_report
        self.reports: list[ReviewReport] = []
        self._go = threading.Event()
        self._go.set()
        self._thread: threading.Thread | None = None
        self.detach_model = detach_model
        self._process: subprocess.Popen | None = None

    def before_turn(self) -> None:
        """A user turn starts: a running review waits before its next model call."""
        self._go.clear()

    def resume(self) -> None:
        """The user's turn is over (answered, interrupted or failed): a paused review carries on."""
        self._go.set()

    @property
    def paused(self) -> bool:
        return not self._go.is_set()

    def after_turn(self, agent: Any, result: Any) -> Decision | None:
        """Decide from the stored session whether to review; start the review in the background if so."""
        self._go.set()
        config = learning_config(self.settings)
        if not config.review or self.pending():
            return None  # one review at a time; counters live in state.db, so the next turn catches up
        store, sid = agent.store, agent.session_id
        if store.get_session(sid).source == "review":
            return None  # a reviewer never triggers reviews
        decision = decide(
            store.messages_with_ids(sid),
            result,
            config,
            last_reviewed_message(store.db, "skill_review", sid),
            last_reviewed_message(store.db, "memory_review", sid),
        )
        if (decision.skill_review or decision.memory_review) and self.detach_model:
            from grove.runtime.background import spawn

            kinds = [
                k for k, on in (("skill", decision.skill_review), ("memory", decision.memory_review)) if on
            ]
            self._process = spawn(
                self.settings, sid, kinds, decision.up_to, agent.ctx.workspace, self.detach_model
            )
        elif decision.skill_review or decision.memory_review:
            factory = self.model_factory or _router_factory(
                self.settings, config.review_model or agent.model.name
            )
            self._thread = threading.Thread(
                target=self._run,
                args=(sid, decision, agent.ctx.workspace, factory),
                name="grove-review",
                daemon=True,
            )
            self._thread.start()
        return decision

    def _run(
        self, session_id: str, decision: Decision, workspace: Any, model_factory: Callable[[], Model]
    ) -> None:
        from grove.learning.review import ReviewReport
        from grove.runtime.review import review_session

        kinds = [k for k, on in (("skill", decision.skill_review), ("memory", decision.memory_review)) if on]
        try:
            model = model_factory()
        except Exception as e:  # no reviewer model: say so once, never break the session
            self.reports.append(ReviewReport(session_id, kinds[0], False, error=f"no reviewer model: {e}"))
            return
        for kind in kinds:
            report = review_session(
                self.settings,
                model,
                session_id,
                kind=kind,
                workspace=workspace,
                up_to=decision.up_to,
                reasons=decision.reasons,
                gate=self._go,
            )
            self.reports.append(report)
            if self.on_report is not None:
                self.on_report(report)

    def pending(self) -> bool:
        if self._process is not None and self._process.poll() is None:
            return True
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a running review; True when none is left running."""
        self._go.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout)
        return not self.pending()


def _router_factory(settings: Any, spec: str) -> Callable[[], Model]:
    def make() -> Model:
        from grove.agent.events import AgentEvents
        from grove.runtime.assemble import build_router

        return build_router(settings, spec, AgentEvents())

    return make
