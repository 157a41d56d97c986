"""Sub-agents: the runner behind the `delegate` tool. Each child is an entrance of the runtime (a Profile with the
parent's id, its own registry from `ToolRegistry.for_subagent()`, an approver per the parent's policy), run in a
thread, up to `delegation.max_parallel` at once, each within its time, token and iteration budgets."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from grove.agent.events import AgentEvents
from grove.config import Settings
from grove.config.delegation import DelegationConfig, delegation_config
from grove.llm.profiles import needs_for
from grove.llm.types import Model
from grove.runtime.child_budget import BudgetedModel, BudgetExceeded, Stopped, usage_to
from grove.runtime.child_report import child_prompt, files_touched, last_answer, split_open_questions
from grove.runtime.child_workspace import child_backend, own_workspace, remove_own, shown
from grove.runtime.profile import Profile
from grove.tools.delegate import ChildReport, DelegateTask
from grove.tools.registry import ToolError, ToolRegistry

# Never given to a child whatever `delegation.allow_tools` says: memory is the user's (children never write it),
# delegate follows the depth limit.
NEVER_IN_CHILDREN = frozenset({"memory", "delegate"})
SOURCE = "delegate"  # the stored source of a child session; the depth of a session is its chain of these


class ChildSession(Protocol):  # what the runner uses of a runtime Session (session.py imports this module)
    settings: Settings
    profile: Profile
    agent: Any
    store: Any

    @property
    def stream(
        self,
    ) -> AgentEvents: ...  # read only here: a Session's is an EventStream, a kind of AgentEvents

    @property
    def id(self) -> str: ...

    def run_turn(self, text: str) -> Any: ...

    def close(self, *, wait_review: bool = False) -> None: ...


OpenSession = Callable[..., ChildSession]  # Session.open(settings, profile, sink, store)


def attach_children(parent: ChildSession, open_session: OpenSession) -> None:
    """Give a session whose tools include `delegate` the runner that tool calls."""
    if parent.agent.tools.get("delegate") is None:
        return
    depth, ancestors = _lineage(parent.store, parent.id)
    parent.agent.ctx.children = Children(parent, open_session, depth, ancestors)


def stop_children(parent: ChildSession) -> None:
    """The parent's turn was interrupted: its running children stop before their next model call."""
    runner = parent.agent.ctx.children
    if isinstance(runner, Children):
        runner.stop()


def _lineage(store: Any, session_id: str) -> tuple[int, list[str]]:
    """How many delegations deep this session is, and the sessions its children's usage is counted in."""
    ancestors = [session_id]
    info = store.get_session(session_id)
    depth = 0
    while info.source == SOURCE and info.parent_id:
        depth += 1
        ancestors.append(info.parent_id)
        info = store.get_session(info.parent_id)
    return depth, ancestors


def _mutating(tools: ToolRegistry) -> set[str]:
    return {n for n in tools.names() if (t := tools.get(n)) is not None and t.mutating}


def _is_serial(model: Model) -> bool:
    """The embedded llama.cpp model serves one call at a time under its own lock (one shared context and KV
    cache): children on it would only queue, and thrash the parent's cache, so they run one after another."""
    inner = getattr(model, "models", None) or [model]
    return any(needs_for(str(getattr(m, "name", ""))).serial for m in inner)


class _ChildEvents(AgentEvents):
    """A child's notices reach the parent's stream, labelled; its text and tool chatter stay in its session."""

    def __init__(self, parent: AgentEvents, label: str) -> None:
        self.parent = parent
        self.label = label

    def on_notice(self, text: str) -> None:
        self.parent.on_notice(f"{self.label}: {text}")


@dataclass
class _Slot:
    started: float = 0.0
    model: BudgetedModel | None = None
    session_id: str | None = None
    workspace: str | None = None
    own: Path | None = None  # a folder made for this child, removed when the delegate call ends


class Children:
    """The `delegate` tool's runner for one parent session: `children(tasks) -> reports`, in task order."""

    def __init__(
        self, parent: ChildSession, open_session: OpenSession, depth: int, ancestors: list[str]
    ) -> None:
        self.parent = parent
        self.open_session = open_session
        self.depth = depth
        self.ancestors = ancestors
        self.config: DelegationConfig = delegation_config(parent.settings)
        self._running: list[_Slot] = []  # slots of children running now, for stop()
        self._halted = False
        self._ask_lock = threading.Lock()  # children ask the parent's approver one at a time
        if parent.profile.child_model is not None:
            self.serial = False  # a model per child
        elif self.config.model:
            self.serial = needs_for(self.config.model).serial
        else:
            self.serial = _is_serial(parent.agent.model)

    @property
    def parallel(self) -> int:
        return 1 if self.serial else self.config.max_parallel

    @property
    def grace(self) -> float:
        """How long past its time budget the runner waits for a child before reporting a timeout (a call in
        flight is never cut; the child then stops before its next model call)."""
        return min(10.0, self.config.max_seconds)

    def stop(self) -> None:
        self._halted = True  # no further child starts
        for slot in list(self._running):
            if slot.model is not None:
                slot.model.stop("stopped: the parent's turn was interrupted")

    def _approver(self) -> Any:
        """None (nobody: what needs approval is denied at once), or the parent's approver, asked by one child at
        a time so questions from parallel children never interleave on the user's screen."""
        approver = self.parent.profile.approver
        if self.config.approvals != "parent" or approver is None:
            return None

        def ask(request: Any) -> Any:
            with self._ask_lock:
                return approver(request)

        return ask

    def __call__(self, tasks: list[DelegateTask]) -> list[ChildReport]:
        cfg = self.config
        if self.depth >= cfg.max_depth:
            raise ToolError(f"delegation depth limit ({cfg.max_depth}) reached; do this task yourself")
        if len(tasks) > cfg.max_tasks:
            raise ToolError(f"at most {cfg.max_tasks} tasks per delegate call; got {len(tasks)}")
        n = len(tasks)
        reports: list[ChildReport | None] = [None] * n
        slots = [_Slot() for _ in tasks]
        cond = threading.Condition()

        def body(i: int) -> None:
            report = self._run_safely(i, tasks[i], slots[i])
            with cond:
                if reports[i] is None:  # not already reported as timed out
                    reports[i] = report
                cond.notify_all()

        self._running.extend(slots)
        self._halted = False
        try:
            self._schedule(tasks, slots, reports, body, cond)
        finally:
            for slot in slots:
                self._running.remove(slot)
            removed = self._clean(slots)
        out: list[ChildReport] = []
        for report, task, slot in zip(reports, tasks, slots, strict=True):
            report = report or ChildReport(
                task.goal, "refused", "", error="not started: the parent's turn was interrupted"
            )
            if slot.own is not None and slot.own in removed:
                report.workspace = f"{slot.workspace} (removed)"
            out.append(report)
        return out

    def _clean(self, slots: list[_Slot]) -> set[Path]:
        """Remove the children's own folders (they are scratch: what matters is in the reports), unless the
        user keeps them for inspection. A timed-out child still running finds its folder gone."""
        if self.config.keep_workspaces:
            return set()
        removed = set()
        for slot in slots:
            if slot.own is not None:
                remove_own(slot.own)  # and its twin on the parent's SSH host
                removed.add(slot.own)
        return removed

    def _schedule(
        self,
        tasks: list[DelegateTask],
        slots: list[_Slot],
        reports: list[ChildReport | None],
        body: Callable[[int], None],
        cond: threading.Condition,
    ) -> None:
        """Start children up to the parallel limit as others finish; report those past their time."""
        cfg = self.config
        n = len(tasks)
        started = 0
        with cond:
            while True:
                running = [i for i in range(started) if reports[i] is None]
                while len(running) < self.parallel and started < n and not self._halted:
                    slots[started].started = time.monotonic()
                    threading.Thread(
                        target=body, args=(started,), name=f"grove-child-{started + 1}", daemon=True
                    ).start()
                    running.append(started)
                    started += 1
                if not running:
                    break
                now = time.monotonic()
                limit = cfg.max_seconds + self.grace
                for i in running:
                    if now >= slots[i].started + limit:
                        reports[i] = self._timed_out(tasks[i], slots[i], now)
                expiry = min((slots[i].started + limit for i in running if reports[i] is None), default=now)
                if expiry > now:
                    cond.wait(expiry - now)

    # -- one child ----------------------------------------------------------------------------------------------
    def _run_safely(self, index: int, task: DelegateTask, slot: _Slot) -> ChildReport:
        try:
            return self._run(index, task, slot)
        except Exception as e:  # a child's failure is a result for the parent, never a crash of its turn
            return ChildReport(
                task.goal, "failed", "", error=f"{type(e).__name__}: {e}", session_id=slot.session_id
            )

    def _run(self, index: int, task: DelegateTask, slot: _Slot) -> ChildReport:
        try:
            tools = self.child_tools(task)
        except ToolError as e:
            return ChildReport(task.goal, "refused", "", error=str(e))
        parent = self.parent
        if task.workspace == "own":
            workspace = slot.own = own_workspace(parent.agent.ctx)  # on the parent's SSH host too
        else:
            workspace = parent.agent.ctx.workspace
        slot.workspace = shown(slot.own) if slot.own is not None else str(workspace)
        label = f"child {index + 1}"
        events = _ChildEvents(parent.stream, label)
        model = BudgetedModel(
            self._model(events),
            seconds=self.config.max_seconds,
            max_tokens=self.config.max_tokens,
            on_usage=usage_to(parent.store, self.ancestors),
        )
        slot.model = model
        profile = Profile(
            source=SOURCE,
            parent_id=parent.id,
            title=" ".join(task.goal.split())[:80],
            toolsets=[],
            tools=tools,  # the parent's tools a child may have (child_tools), nothing else
            workspace=workspace,
            backend=child_backend(parent.agent.ctx, slot.own),  # the parent's backend (its own folder there)
            max_iterations=self.config.max_iterations,
            allow_terminal=parent.profile.allow_terminal,
            yolo=parent.profile.yolo,
            allow_unisolated=parent.profile.allow_unisolated,
            approver=self._approver(),
            model=model,  # routed already (the parent's router, or one built for children)
            child_model=parent.profile.child_model,
        )
        session = self.open_session(parent.settings, profile, events, parent.store)
        slot.session_id = session.id
        status, error, answer, calls, unsupported = "done", None, "", [], None
        try:
            result = session.run_turn(child_prompt(task, workspace))
            answer, calls = result.answer, result.tool_calls
            # its claims were checked against its own tool calls: the parent sees which do not hold
            unsupported = [v.as_dict() for v in result.claims if v.marked] or None
            if result.budget_exhausted:
                status, error = "budget", f"iteration budget of {self.config.max_iterations} used up"
            elif result.interrupted:
                status, error = "failed", "interrupted"
        except Stopped as e:
            status, error, answer = "failed", str(e), last_answer(parent.store, session.id)
        except BudgetExceeded as e:
            status, error, answer = "budget", str(e), last_answer(parent.store, session.id)
        except Exception as e:
            status, error = "failed", f"{type(e).__name__}: {e}"
            answer = last_answer(parent.store, session.id)
        finally:
            session.close()
        result_text, questions = split_open_questions(answer)
        return ChildReport(
            task.goal,
            status,
            result_text,
            files_touched(calls, _mutating(tools), workspace if task.workspace == "own" else None),
            questions,
            error,
            session.id,
            slot.workspace,
            model.calls,
            model.tokens,
            round(time.monotonic() - slot.started, 3),
            unsupported,
        )

    def _timed_out(self, task: DelegateTask, slot: _Slot, now: float) -> ChildReport:
        if slot.model is not None:
            slot.model.stop()  # it stops before its next model call
        return ChildReport(
            task.goal,
            "timeout",
            last_answer(self.parent.store, slot.session_id) if slot.session_id else "",
            error=f"no answer within {self.config.max_seconds:g}s (+{self.grace:g}s grace)",
            session_id=slot.session_id,
            workspace=slot.workspace,
            model_calls=slot.model.calls if slot.model else 0,
            tokens=slot.model.tokens if slot.model else 0,
            seconds=round(now - slot.started, 3),
        )

    def _model(self, events: AgentEvents) -> Model:
        """The profile's factory (an embedding, tests), else `delegation.model`, else the parent's own model."""
        if self.parent.profile.child_model is not None:
            return self.parent.profile.child_model()
        if self.config.model:
            from grove.runtime.assemble import build_router

            return build_router(self.parent.settings, self.config.model, events)
        return self.parent.agent.model

    def child_tools(self, task: DelegateTask) -> ToolRegistry:
        """The parent's tools a child may have: `subagent_ok` ones, in the toolsets asked for; nothing that needs
        approval unless the parent's policy lets children ask (or approvals are off); read-only on a view of the
        parent's workspace; `delegate` itself only while the depth limit allows another level."""
        parent_tools: ToolRegistry = self.parent.agent.tools
        allowed = parent_tools.for_subagent()
        extra = [  # tools kept from children by default that the user's policy lets them have
            t
            for n in self.config.allow_tools
            if n not in NEVER_IN_CHILDREN and (t := parent_tools.get(n)) is not None and not t.subagent_ok
        ]
        if extra:
            kept = [t for n in allowed.names() if (t := allowed.get(n)) is not None]
            allowed = ToolRegistry([*kept, *extra])
        if task.toolsets is not None:
            unknown = [t for t in task.toolsets if t not in allowed.toolsets]
            if unknown:
                raise ToolError(
                    f"toolset(s) {', '.join(unknown)} not available to children; "
                    f"available: {', '.join(sorted(allowed.toolsets)) or 'none'}"
                )
            allowed = allowed.select(task.toolsets)
        may_ask = self.config.approvals == "parent" or self.parent.profile.yolo
        kept = []
        for name in allowed.names():
            tool = allowed.get(name)
            assert tool is not None
            if tool.needs_approval and not may_ask:
                continue
            if tool.mutating and task.workspace == "view":
                continue
            kept.append(tool)
        delegate = parent_tools.get("delegate")
        if delegate is not None and self.depth + 1 < self.config.max_depth:
            kept.append(delegate)
        return ToolRegistry(kept)
