"""`grove chat`: the interactive terminal (prompt_toolkit input, streamed answers, slash commands)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import typer

from grove.cli.common import load, split_csv

if TYPE_CHECKING:
    from grove.agent.events import AgentEvents
    from grove.config import Settings
    from grove.learning.scheduler import ReviewScheduler

HELP = """\
/help            this help
/new             start a new session
/resume [ID]     continue a session (default: the last one)
/model [SPEC]    show or switch the model (starts a new session)
/tools           list the tools of this session
/usage           tokens and cost of this session
/plan TEXT       plan then act: write or reuse tested code skills, step by step
/compress        compress the context now (every message stays in state.db)
/goal TEXT       work toward a goal until a judge says done (also: /goal status|pause|resume [ID])
/exit            leave (Ctrl-D works too)
Enter sends; Esc then Enter (or Alt-Enter) inserts a new line; Ctrl-C cancels a running turn."""


def start_learning(settings: Settings, events: AgentEvents) -> ReviewScheduler:
    """The background loops of an interactive session: the reviewer after turns, the curator when it is due, and
    a notice when memory is nearly full."""
    import threading

    from grove.learning.curator import run_curator_if_due
    from grove.learning.scheduler import ReviewScheduler
    from grove.memory.prompt import memory_notice

    notice = memory_notice(settings)
    if notice:
        events.on_notice(notice)
    if settings.learning.curator:
        threading.Thread(
            target=run_curator_if_due, args=(settings,), name="grove-curator", daemon=True
        ).start()
    return ReviewScheduler(
        settings, on_report=lambda report: events.on_notice(report.render().splitlines()[0])
    )


def chat(
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec (see `grove run --help`)."),
    toolsets: str | None = typer.Option(None, "--toolsets", "-t", help="Comma-separated toolsets."),
    resume: str | None = typer.Option(None, "--resume", "-r", help="Continue session ID (or 'last')."),
    allow_terminal: bool = typer.Option(False, "--allow-terminal", help="Let the model run shell commands."),
    yolo: bool = typer.Option(
        False, "--yolo", help="Run dangerous commands without asking (hard blocklist stays)."
    ),
) -> None:
    """Chat with grove in the terminal. Type /help inside for commands."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings
    from rich.console import Console
    from rich.markup import escape

    from grove.agent.loop import Agent
    from grove.agent.session import SessionOptions, open_agent, open_store
    from grove.cli.output import TerminalEvents
    from grove.errors import GroveError
    from grove.llm.errors import ModelError

    settings = load()
    settings.home.mkdir(parents=True, exist_ok=True)
    console = Console(highlight=False)
    events = TerminalEvents(stream_text=True)
    store = open_store(settings)
    options = SessionOptions(
        model=model,
        toolsets=split_csv(toolsets),
        resume=resume,
        allow_terminal=allow_terminal,
        yolo=yolo,
        interactive=True,
        source="chat",
        long_lived=True,
    )
    agent = open_agent(settings, options, events, store)
    keys = KeyBindings()

    @keys.add("escape", "enter")
    def _newline(event) -> None:  # type: ignore[no-untyped-def]
        event.current_buffer.insert_text("\n")

    prompt = PromptSession(history=FileHistory(str(settings.home / "chat_history")), key_bindings=keys)
    console.print(
        f"[bold green]grove[/] · {agent.model.name} · session {agent.session_id} · /help for commands"
    )
    reviews = start_learning(settings, events)

    def switch(session_id: str) -> Agent:
        reopen(resume=session_id)
        return agent

    def reopen(**changes: object) -> None:
        nonlocal agent
        agent.close()
        for key, value in changes.items():
            setattr(options, key, value)
        agent = open_agent(settings, options, events, store)
        options.resume = None
        console.print(f"[dim]session {agent.session_id} · {agent.model.name}[/]")

    while True:
        try:
            text = prompt.prompt("› ").strip()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        if not text:
            continue
        if text.startswith("/"):
            cmd, _, arg = text.partition(" ")
            arg = arg.strip()
            try:
                if cmd in ("/exit", "/quit"):
                    break
                elif cmd == "/help":
                    console.print(HELP, markup=False)
                elif cmd == "/new":
                    reopen(resume=None)
                elif cmd == "/resume":
                    reopen(resume=arg or "last")
                elif cmd == "/model":
                    if arg:
                        reopen(model=arg, resume=None)
                    else:
                        console.print(agent.model.name, markup=False)
                elif cmd == "/tools":
                    console.print(", ".join(agent.tools.names()) or "no tools", markup=False)
                elif cmd == "/usage":
                    info = store.get_session(agent.session_id)
                    console.print(
                        f"model calls {info.model_calls} · prompt {info.prompt_tokens} · completion "
                        f"{info.completion_tokens} · cached {info.cached_tokens} · ${info.cost_usd:.4f}",
                        markup=False,
                    )
                elif cmd == "/compress":
                    agent.compress()
                    if agent.compressor.reports[-1].status == "skipped":
                        console.print("nothing worth compressing yet", markup=False)
                elif cmd == "/plan":
                    if not arg:
                        console.print(
                            "usage: /plan TEXT — plan with code skills, then act step by step", markup=False
                        )
                    else:
                        from grove.plan.loop import run_plan_turn

                        reviews.before_turn()
                        console.print(run_plan_turn(agent, arg).answer or "(no answer text)", markup=False)
                elif cmd == "/goal":
                    from grove.cli.goal import chat_goal

                    chat_goal(arg, agent, store, lambda t: console.print(t, markup=False), switch)
                else:
                    console.print(f"unknown command {cmd}; /help lists them", markup=False)
            except GroveError as e:
                console.print(f"[red]{escape(str(e))}[/]")
            continue
        reviews.before_turn()  # the user comes first: a running review waits
        try:
            result = agent.run_turn(text)
        except ModelError as e:
            console.print(f"[red]model error: {escape(str(e))}[/] (the session keeps everything so far)")
            continue
        if result.interrupted:
            console.print("[yellow]turn cancelled; what was done is kept[/]")
            continue
        if not result.answer:
            console.print("[dim](no answer text)[/]")
        for notice in agent.ctx.state.pop("notices", []):
            events.on_notice(notice)
        reviews.after_turn(agent, result)
    agent.close()
    if reviews.pending():
        console.print("[dim]finishing the background review… (Ctrl-C skips it)[/]")
        with contextlib.suppress(KeyboardInterrupt):
            reviews.wait()
