"""`grove chat`: the interactive terminal (prompt_toolkit input, streamed answers, slash commands)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from grove.cli.common import load, split_csv
from grove.cli.run import BACKEND_HELP

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyPressEvent

    from grove.cli.output import TerminalEvents
    from grove.runtime import Session
    from grove.runtime.stream import EventStream

HELP = """\
/help            this help
/new             start a new session
/resume [ID]     continue a session (default: the last one)
/model [SPEC]    show or switch the model (starts a new session)
/tools           list the tools of this session
/usage           tokens and cost of this session
/context         what the last request's prompt was made of (system, memory, skills, tools, history, cached)
/plan TEXT       plan then act: write or reuse tested code skills, step by step
/image PATH|URL  attach an image (PNG, JPEG, GIF, WebP; 5 MB) to your next message
/compress        compress the context now (every message stays in state.db)
/undo [N]        take back what the last N turns changed in the workspace (--force over your own edits)
/rollback [ID]   list checkpoints, or restore the workspace as it was before checkpoint ID
/goal TEXT       work toward a goal until a judge says done (also: /goal status|pause|resume [ID])
/exit            leave (Ctrl-D works too)
Enter sends; Esc then Enter (or Alt-Enter) inserts a new line; Ctrl-C cancels a running turn."""


def chat(
    model: str | None = typer.Option(None, "--model", "-m", help="Model spec (see `grove run --help`)."),
    toolsets: str | None = typer.Option(None, "--toolsets", "-t", help="Comma-separated toolsets."),
    resume: str | None = typer.Option(None, "--resume", "-r", help="Continue session ID (or 'last')."),
    allow_terminal: bool = typer.Option(False, "--allow-terminal", help="Let the model run shell commands."),
    yolo: bool = typer.Option(
        False, "--yolo", help="Run dangerous commands without asking (hard blocklist stays)."
    ),
    backend: str | None = typer.Option(None, "--backend", help=BACKEND_HELP),
) -> None:
    """Chat with grove in the terminal. Type /help inside for commands."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings
    from rich.console import Console
    from rich.markup import escape

    from grove.cli.output import TerminalEvents
    from grove.cli.run import choose_backend, terminal_approver
    from grove.errors import GroveError
    from grove.llm.errors import ModelError
    from grove.runtime import Profile, Session
    from grove.runtime.assemble import open_store
    from grove.runtime.stream import EventStream

    settings = load()
    choose_backend(settings, backend)
    settings.home.mkdir(parents=True, exist_ok=True)
    console = Console(highlight=False)
    shown = TerminalEvents(stream_text=True)
    stream = EventStream(shown)
    store = open_store(settings)
    profile = Profile(
        source="chat",
        model=model,
        toolsets=split_csv(toolsets),
        resume=resume,
        allow_terminal=allow_terminal,
        yolo=yolo,
        approver=terminal_approver(interactive=True),
        long_lived=True,
        review="thread",
        curator=True,
    )
    session = Session.open(settings, profile, stream, store)
    profile.curator = False  # once per chat, not per /new
    keys = KeyBindings()

    @keys.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    history = settings.home / "chat_history"
    history.parent.mkdir(parents=True, exist_ok=True)
    history.touch(0o600)
    history.chmod(0o600)  # what you typed (pasted keys too) is for your eyes only, as config.yaml is
    prompt = PromptSession(history=FileHistory(str(history)), key_bindings=keys)
    console.print(
        f"[bold green]grove[/] · {session.agent.model.name} · session {session.id} · /help for commands"
    )

    def switch(session_id: str) -> Session:
        reopen(resume=session_id)
        return session

    def reopen(**changes: object) -> None:
        nonlocal session
        session.close()
        for key, value in changes.items():
            setattr(profile, key, value)
        session = Session.open(settings, profile, stream, store)
        profile.resume = None
        console.print(f"[dim]session {session.id} · {session.agent.model.name}[/]")

    images: list[dict[str, object]] = []  # attached with /image, sent with the next message
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
                        console.print(session.agent.model.name, markup=False)
                elif cmd == "/tools":
                    console.print(", ".join(session.agent.tools.names()) or "no tools", markup=False)
                elif cmd == "/usage":
                    info = store.get_session(session.id)
                    console.print(
                        f"model calls {info.model_calls} · prompt {info.prompt_tokens} · completion "
                        f"{info.completion_tokens} · cached {info.cached_tokens} · ${info.cost_usd:.4f}",
                        markup=False,
                    )
                elif cmd == "/context":
                    from grove.spend.composition import render

                    recent = getattr(session.agent.model, "compositions", None)
                    console.print(render(recent[-1]) if recent else "no model request yet", markup=False)
                elif cmd == "/image":
                    from grove.llm.images import ImageError, image_part

                    note = "usage: /image PATH|URL (sent with your next message)"
                    try:
                        if arg:
                            images.append(image_part(arg))
                            note = f"{len(images)} image(s) go with your next message"
                    except ImageError as e:
                        note = str(e)
                    console.print(note, markup=False)
                elif cmd == "/compress":
                    session.compress()
                    if session.agent.compressor.reports[-1].status == "skipped":
                        console.print("nothing worth compressing yet", markup=False)
                elif cmd == "/plan":
                    if not arg:
                        console.print(
                            "usage: /plan TEXT — plan with code skills, then act step by step", markup=False
                        )
                    else:
                        console.print(session.run_plan(arg).answer or "(no answer text)", markup=False)
                elif cmd in ("/undo", "/rollback"):
                    from grove.cli.checkpoints import chat_command

                    where = profile.workspace or Path.cwd()
                    turns = session.agent.ctx.checkpoints  # of the session's backend's workspace
                    chat_command(
                        cmd, arg, where, lambda t: console.print(t, markup=False), turns and turns.store
                    )
                elif cmd == "/goal":
                    from grove.cli.goal import chat_goal

                    chat_goal(arg, session, lambda t: console.print(t, markup=False), switch)
                else:
                    console.print(f"unknown command {cmd}; /help lists them", markup=False)
            except GroveError as e:
                console.print(f"[red]{escape(str(e))}[/]")
            except ModelError as e:
                console.print(f"[red]model error: {escape(str(e))}[/] (the session keeps everything so far)")
            continue
        try:
            attached, images = images, []
            result = session.run_turn(text, attached or None)
        except ModelError as e:
            console.print(f"[red]model error: {escape(str(e))}[/] (the session keeps everything so far)")
            continue
        if result.interrupted:
            keep_interrupted_text(session, stream, shown)
            console.print("[yellow]turn cancelled; what was done is kept[/]")
            continue
        if not result.answer:
            console.print("[dim](no answer text)[/]")
    pending = session.review_pending()
    if pending:
        console.print("[dim]finishing the background review… (Ctrl-C skips it)[/]")
    with contextlib.suppress(KeyboardInterrupt):
        session.close(wait_review=pending)


INTERRUPTED_MARK = "[interrupted by the user]"


def keep_interrupted_text(session: Session, stream: EventStream, shown: TerminalEvents) -> None:
    """After Ctrl-C in a model call: the half line the stream held back is shown now (it must not open the next
    answer), and the text the user saw is kept in the session as an assistant message marked interrupted."""
    shown.last_call_text = ""
    stream.on_model_done(False)  # flushes the held-back text and closes the call
    text = shown.last_call_text
    if text.strip():
        session.agent.append({"role": "assistant", "content": f"{text.rstrip()}\n{INTERRUPTED_MARK}"})
