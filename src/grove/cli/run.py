"""`grove run TEXT`: one turn, one answer; scriptable (`--json`), resumable (`--resume ID`)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load, split_csv

if TYPE_CHECKING:
    from grove.agent.loop import Agent, TurnResult
    from grove.config import Settings


def run(
    text: str = typer.Argument(..., help='What to ask or do, e.g. "What is the capital of France?"'),
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        help="Model spec: local, openai:<m>, anthropic:<m>, openrouter:<m>, "
        "openai-compat:<m>@<url>, script:<file.yaml>.",
    ),
    toolsets: str | None = typer.Option(
        None, "--toolsets", "-t", help="Comma-separated toolsets (files, terminal, todo, ...); '' for none."
    ),
    max_iterations: int | None = typer.Option(None, "--max-iterations", min=1, help="Model calls per turn."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (answer, usage, tool calls)."),
    resume: str | None = typer.Option(None, "--resume", "-r", help="Continue session ID (or 'last')."),
    allow_terminal: bool = typer.Option(False, "--allow-terminal", help="Let the model run shell commands."),
    yolo: bool = typer.Option(
        False, "--yolo", help="Run dangerous commands without asking (hard blocklist stays)."
    ),
    plan: bool = typer.Option(
        False,
        "--plan",
        help="Plan then act: plan steps (write or call a code skill, write the result).",
    ),
    wait_review: bool = typer.Option(
        False, "--wait-review", help="Wait for the background self-review (if one is due) before exiting."
    ),
) -> None:
    """Run one turn and print the answer. Example: grove run "Summarise README.md" -t files"""
    from grove.agent.session import SessionOptions, open_agent
    from grove.cli.output import TerminalEvents
    from grove.llm.errors import ModelError
    from grove.security.redact import redact

    settings = load()
    events = TerminalEvents(stream_text=not as_json and sys.stdout.isatty(), quiet=as_json)
    options = SessionOptions(
        model=model,
        toolsets=split_csv(toolsets),
        resume=resume,
        max_iterations=max_iterations,
        allow_terminal=allow_terminal,
        yolo=yolo,
        interactive=sys.stdin.isatty() and not as_json,  # in a script nobody can answer: deny at once
    )
    agent = open_agent(settings, options, events)
    try:
        if plan:
            from grove.plan.loop import run_plan_turn

            result = run_plan_turn(agent, text)
        else:
            result = agent.run_turn(text)
    except ModelError as e:
        fail(
            f"{e}\n(session {agent.session_id} keeps everything up to the failure; "
            f"continue it with `grove run --resume {agent.session_id} ...`)",
            code=1,
        )
    finally:
        agent.close()
    if as_json:
        payload = {
            "answer": redact(result.answer),
            "session_id": agent.session_id,
            "model": agent.model.name,
            "usage": result.usage.as_dict(),
            "tool_calls": [c.as_dict() for c in result.tool_calls],
            "model_calls": result.model_calls,
            "interrupted": result.interrupted,
            "budget_exhausted": result.budget_exhausted,
        }
        print(json.dumps(payload, ensure_ascii=False))
    elif not events.streaming:
        print(redact(result.answer))
    for notice in agent.ctx.state.pop("notices", []):
        events.on_notice(notice)
    if not result.interrupted:
        review_after(settings, agent, result, wait=wait_review)
    if result.interrupted:
        raise typer.Exit(130)


def review_after(settings: Settings, agent: Agent, result: TurnResult, wait: bool) -> None:
    """Start the self-review when its triggers fire: a detached process (the answer is already out), or a thread
    we wait for with --wait-review. A scripted model has no reviewer unless `learning.review_model` names one."""
    spec = settings.learning.review_model or agent.model.name
    if spec.startswith("script:") and not settings.learning.review_model:
        return
    from grove.learning.scheduler import ReviewScheduler

    scheduler = ReviewScheduler(settings, detach_model=None if wait else spec)
    scheduler.after_turn(agent, result)
    if wait:
        scheduler.wait()
        for report in scheduler.reports:
            print(report.render(), file=sys.stderr)
