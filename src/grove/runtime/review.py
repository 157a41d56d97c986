"""Running a self-review: the reviewer's agent is opened through the runtime like every other agent (same
redaction, compression and policy: unattended, so nothing that needs approval runs), with its own tools."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from grove.agent.events import AgentEvents
from grove.config.learning import learning_config
from grove.learning.review import (
    MEMORY_REVIEW_PROMPT,
    SKILL_REVIEW_PROMPT,
    GatedModel,
    ReviewReport,
    render_transcript,
    review_task,
    used_skills,
)
from grove.learning.reviewer_tools import ChangeLog, reviewer_registry
from grove.learning.runs import finish_run, start_run
from grove.llm.profiles import needs_for
from grove.llm.types import Model
from grove.runtime.profile import Profile
from grove.runtime.review_code import CODE_REVIEW_PROMPT, draft_code_skill, touched_files, used_tools
from grove.runtime.review_lean import (
    LEAN_REVIEW_ASK,
    LEAN_REVIEW_TOOLS,
    LEAN_SKILL_REVIEW_PROMPT,
    FirstCall,
    judged_done,
    with_frontmatter,
)
from grove.store.sessions import SessionStore


def review_session(
    settings: Any,
    model: Model,
    session_id: str,
    *,
    kind: str = "skill",
    dry_run: bool = False,
    workspace: Path | None = None,
    store: SessionStore | None = None,
    up_to: int | None = None,
    reasons: list[str] | None = None,
    gate: threading.Event | None = None,
    events: AgentEvents | None = None,
) -> ReviewReport:
    """Review one session (its messages up to message id `up_to`); returns what changed (or would, in a dry run)."""
    from grove.codeskills.repeats import find_repeats
    from grove.memory.prompt import memory_prompt_block
    from grove.runtime.assemble import open_agent
    from grove.skills.code_meta import is_code_skill
    from grove.skills.discover import discover
    from grove.skills.index import render_index

    if kind not in ("skill", "memory"):
        raise ValueError(f"unknown review kind {kind!r}; 'skill' or 'memory'")
    config = learning_config(settings)
    own_store = store is None
    store = store or SessionStore.open(settings.db_path)
    session_id = store.resolve_id(session_id)
    report = ReviewReport(session_id, kind, dry_run, reasons=list(reasons or []))
    history = [(mid, m) for mid, m in store.messages_with_ids(session_id) if up_to is None or mid <= up_to]
    last_id = history[-1][0] if history else 0
    run_id = start_run(store.db, f"{kind}_review", session_id, last_id, dry_run)
    workspace = (workspace or Path.cwd()).resolve()
    log = ChangeLog()
    agent = None
    messages = [m for _, m in history]
    try:
        library = discover(settings, workspace)
        task = review_task(
            kind,
            render_transcript(messages),
            used_skills(store, session_id),
            render_index(library.sorted(), budget=4000),
            memory_prompt_block(settings),
        )
        system = SKILL_REVIEW_PROMPT if kind == "skill" else MEMORY_REVIEW_PROMPT
        runner = None
        if config.skill_probes and kind == "skill" and not dry_run:
            from grove.learning.skill_probes import PROBE_ASK
            from grove.runtime.review_probes import probe_runner

            runner = probe_runner(settings, GatedModel(model, gate))  # replayed on the reviewer's model
            task = f"{task}\n\n{PROBE_ASK}"
        tools = reviewer_registry(
            kind,
            log,
            session_id,
            dry_run=dry_run,
            overlap_threshold=config.overlap_threshold,
            probe_runner=runner,
            probe_budget=config.probe_replays,
        )
        lean = needs_for(model.name).review == "lean"  # the reviewer's own model decides its review path
        reviewer: Model = FirstCall(model) if lean else model
        code_task = False
        if lean and kind == "skill":
            made = {n for n, s in library.skills.items() if is_code_skill(s.metadata)} | {"skill_run"}
            if used_tools(messages, made, ok=False):
                # the tool exists; a small model's draft would only repeat it
                did = "did the task" if used_tools(messages, made) else "was called and failed"
                report.answer = f"nothing to keep: a code skill grove made {did}"
                finish_run(store.db, run_id, "done", [], None, None)
                return _closed(report, store, own_store)
            if touched_files(messages):
                # a small local model writes code better than it judges or describes steps: the kind of task
                # becomes a tested tool, kept only when its tests pass
                code_task, system = True, CODE_REVIEW_PROMPT
                tools = tools.without([n for n in tools.names() if n != "skill_code_create"])
        if lean and kind == "skill" and not code_task:
            # otherwise it follows one short instruction with two tools, not the full reviewer's brief: first it
            # only judges whether the session did its task; a failed one is not reviewed further
            done, verdict = judged_done(GatedModel(model, gate), render_transcript(messages))
            if not done:
                report.answer, report.model_calls = (
                    f"nothing to keep (did the session do its task? {verdict})",
                    1,
                )
                finish_run(store.db, run_id, "done", [], None, None)
                return _closed(report, store, own_store)
            system, task = LEAN_SKILL_REVIEW_PROMPT, f"{task}\n\n{LEAN_REVIEW_ASK}"
            keep = {*LEAN_REVIEW_TOOLS, "skill_code_create"}
            tools = with_frontmatter(tools.without([n for n in tools.names() if n not in keep]))
            reviewer = FirstCall(model, "skill_manage")
        if lean and not code_task and not find_repeats(messages):
            # a small local model reaches for a code skill whenever it sees code, though nothing was repeated
            tools = tools.without(["skill_code_create"])
        profile = Profile(
            source="review",  # never listed or searched as a user session, never reviewed itself
            toolsets=[],
            tools=tools,  # its own tools only
            system_prompt=system,
            title=f"{kind} review of {session_id}",
            parent_id=session_id,
            max_iterations=config.reviewer_max_iterations,
            workspace=workspace,
            model=GatedModel(reviewer, gate),  # the reviewer's model is a router already
        )
        agent = open_agent(settings, profile, events, store)
        report.reviewer_session_id = agent.session_id
        if code_task:
            report.answer, report.model_calls = draft_code_skill(agent, messages)
        else:
            result = agent.run_turn(task)
            report.answer, report.model_calls = (
                result.answer,
                result.model_calls + (1 if lean and kind == "skill" else 0),
            )
        report.changes = log.changes
        status = "done"
    except Exception as e:  # a failed review must never reach the user's session; it is logged instead
        report.changes, report.error, status = log.changes, f"{type(e).__name__}: {e}", "failed"
    finally:
        if agent is not None:
            agent.close()
    finish_run(store.db, run_id, status, report.changes, report.error, report.reviewer_session_id)
    return _closed(report, store, own_store)


def _closed(report: ReviewReport, store: SessionStore, own_store: bool) -> ReviewReport:
    if own_store:
        store.db.close()
    return report
