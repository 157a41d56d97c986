"""`grove run TEXT`: one turn, one answer; scriptable (`--json`), resumable (`--resume ID`)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import typer

from grove.cli.common import fail, load, split_csv
from grove.providers_table import spec_syntaxes

if TYPE_CHECKING:
    from grove.agent.loop import ToolCallRecord
    from grove.config import Settings
    from grove.security.approval.flow import Approver
    from grove.tools.registry import ToolRegistry


BACKEND_HELP = (
    "Where terminal and file tools act: local, ssh:HOST[:/remote/workspace] (HOST, keys and host key from your "
    "ssh config and known_hosts), podman:IMAGE or docker:IMAGE (a container per session), or a name from the "
    "`backends.named` config; default: `backends.use`."
)


def run(
    text: str | None = typer.Argument(
        None,
        help='What to ask or do, e.g. "What is the capital of France?"; `-` or none with a pipe: read standard '
        "input (echo text | grove run).",
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        help=f"Model spec: {spec_syntaxes()}.",
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
    allow_unisolated: bool = typer.Option(
        False,
        "--allow-unisolated",
        help="With nobody to approve (a script, --json) and NO sandbox isolation on this machine, still let "
        "commands and code run: they could read and change anything you can.",
    ),
    plan: bool = typer.Option(
        False,
        "--plan",
        help="Plan then act: plan steps (write or call a code skill, write the result).",
    ),
    image: list[str] | None = typer.Option(
        None,
        "--image",
        "-i",
        help="An image for the model to see with the prompt: a PNG/JPEG/GIF/WebP file or an http(s) URL "
        "(repeatable; capped at 5 MB).",
    ),
    wait_review: bool = typer.Option(
        False, "--wait-review", help="Wait for the background self-review (if one is due) before exiting."
    ),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
) -> None:
    """Run one turn and print the answer. Example: grove run "Summarise README.md" -t files"""
    from grove.cli.output import TerminalEvents
    from grove.llm.errors import ModelError
    from grove.runtime import Profile, Session

    text = prompt_text(text)
    images = image_parts(image or [])
    if images and plan:
        fail("--image and --plan do not go together yet: ask about the image without --plan", 2)
    settings = load()
    choose_backend(settings, backend)
    events = TerminalEvents(stream_text=not as_json and sys.stdout.isatty(), quiet=as_json)
    profile = Profile(
        source="cli",
        model=model,
        toolsets=split_csv(toolsets),
        resume=resume,
        max_iterations=max_iterations,
        allow_terminal=allow_terminal,
        yolo=yolo,
        allow_unisolated=allow_unisolated,
        approver=terminal_approver(interactive=sys.stdin.isatty() and not as_json),
        # the answer is out before a review starts: a detached process carries it on after we exit
        review="thread" if wait_review else "detached",
        curator="detached",  # after the answer, when due (at most once per learning.curator_interval_days)
    )
    session = Session.open(settings, profile, events)
    if as_json:
        from grove.runtime.child_usage import child_ids

        children_before = child_ids(session.store, session.id)  # a resumed session's earlier children
    try:
        result = session.run_plan(text) if plan else session.run_turn(text, images)
    except ModelError as e:
        session.close()
        fail(
            f"{e}\n(session {session.id} keeps everything up to the failure; "
            f"continue it with `grove run --resume {session.id} ...`)",
            code=1,
        )
    except BaseException:
        session.close()
        raise
    answer = result.answer  # redacted by the agent, like everything it keeps
    if as_json:
        from grove.runtime.child_usage import turn_children

        # usage and model_calls are the whole turn's: this session's own calls plus its children's
        children = turn_children(session.store, session.id, children_before)
        usage = result.usage.as_dict()
        total = {k: v + sum(c["usage"][k] for c in children) for k, v in usage.items()}
        payload = {
            "answer": answer,
            "session_id": session.id,
            "model": session.agent.model.name,
            "usage": total,
            "tool_calls": [c.as_dict() for c in result.tool_calls],
            "model_calls": result.model_calls + sum(c["model_calls"] for c in children),
            "own_usage": usage,
            "own_model_calls": result.model_calls,
            "children": children,
            "interrupted": result.interrupted,
            "budget_exhausted": result.budget_exhausted,
            "notices": session.stream.notices,
            # the answer's claims about its own work, checked against this turn's tool calls (grove.claims)
            "claims": [v.as_dict() for v in result.claims],
            # each model request's prompt by part (system, memory, skills index, tools, history, tool results)
            "prompt_composition": list(getattr(session.agent.model, "compositions", [])),
            # the untrusted sources in this conversation (pages read, terminal and MCP output, outside files)
            "untrusted_sources": list(session.agent.ctx.policy.taint.sources),
        }
        print(json.dumps(payload, ensure_ascii=False))
    elif not events.streaming:
        print(answer)
    session.close(wait_review=wait_review)  # the answer is out: now a review may be waited for
    if wait_review and session.reviews is not None:
        for report in session.reviews.reports:
            print(report.render(), file=sys.stderr)
    if result.interrupted:
        fail(
            f"interrupted; session {session.id} keeps what was done (grove run --resume {session.id} ...)",
            130,
        )
    if change_failed(result.tool_calls, session.agent.tools):
        fail(
            "the asked change did not happen: the turn's last call that changes the workspace failed (its error "
            f"and fix are shown above as ✗); session {session.id} keeps the conversation",
            code=1,
        )
    if plan and result.budget_exhausted:  # no plan, or one that did not finish: a script must see the failure
        fail(f"the plan did not finish; session {session.id} keeps what was done", code=1)


def choose_backend(settings: Settings, backend: str | None) -> None:
    """Apply `--backend` to the settings, refusing a malformed one before anything starts (exit 2)."""
    from grove.backends.base import BackendError
    from grove.backends.spec import parse_spec

    chosen = backend if backend is not None else settings.backends.use
    try:
        parse_spec(chosen, settings.backends.named)
    except BackendError as e:
        fail(str(e), 2)
    settings.backends.use = chosen


def change_failed(calls: list[ToolCallRecord], tools: ToolRegistry) -> bool:
    """The exit rule for a one-shot run: the turn called tools that may change the workspace and the last such
    call failed. A model that recovers (a later change succeeds) ends the run 0; one that only read or answered
    never fails here; a command that ran and exited non-zero is a result, not a failed call."""
    changing = [c for c in calls if (tool := tools.get(c.name)) is not None and tool.may_change_workspace]
    return bool(changing) and not changing[-1].ok


def image_parts(sources: list[str]) -> list[dict[str, Any]]:
    """`--image` values as image parts, read before any session opens: a bad file fails fast, exit 2."""
    if not sources:
        return []
    from grove.llm.images import ImageError, image_part

    try:
        return [image_part(source) for source in sources]
    except ImageError as e:
        fail(str(e), 2)


def prompt_text(text: str | None) -> str:
    """The prompt: the argument, or standard input when it is `-` or absent and input is piped."""
    if text is None or text == "-":
        if sys.stdin is None or (text is None and sys.stdin.isatty()):  # no stdin at all, or a person
            fail('give the prompt as an argument (grove run "question") or pipe it (echo hi | grove run)', 2)
        text = sys.stdin.read()
    assert text is not None  # narrowed above: the argument, or what stdin held
    if not text.strip():
        fail('the prompt is empty; say what to do, e.g. grove run "Summarise README.md"', 2)
    return text


def terminal_approver(interactive: bool) -> Approver | None:
    """Who answers approval questions: the user at this terminal, or nobody (a script: denied at once)."""
    if not interactive:
        return None
    from grove.security.approval.prompt import tty_approver

    return tty_approver()
