"""`grove serve`: grove as an OpenAI-compatible API (any OpenAI client or chat UI talks to grove and keeps its
memory and skills), with `grove serve keys add|list|remove` for the client keys every request needs."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from grove.cli.common import fail, load, split_csv
from grove.providers_table import spec_syntaxes

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.serve.keys import KeyStore

app = typer.Typer(
    help="Serve grove as an OpenAI-compatible API (/v1/chat/completions, /v1/models, /v1/responses).",
    invoke_without_command=True,
    rich_markup_mode=None,
)
keys_app = typer.Typer(
    help="Client API keys: every request needs one (Authorization: Bearer ...).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(keys_app, name="keys")

EXTRA_HINT = "grove serve needs the serve extra: pip install 'grove-agent[serve]'"


def _require_extra() -> None:
    import importlib.util

    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        fail(EXTRA_HINT, 2)


def _keys() -> KeyStore:
    from grove.runtime.assemble import open_store
    from grove.serve.keys import KeyStore

    return KeyStore(open_store(load()).db)


@app.callback()
def serve(
    ctx: typer.Context,
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on; anything but loopback reaches other machines."
    ),
    port: int = typer.Option(8765, "--port", "-p", min=0, max=65535, help="Port (0 = any free port)."),
    rate: float = typer.Option(
        60.0, "--rate", min=0.001, help="Requests per minute per key (a key's own --rate wins)."
    ),
    burst: int = typer.Option(
        10, "--burst", min=1, help="Requests a key may send at once before --rate applies."
    ),
    cors_origin: list[str] = typer.Option(
        None,
        "--cors-origin",
        help="Let a web page from this origin call the API (e.g. http://localhost:3000); repeat for more. "
        "Default: none.",
    ),
    toolsets: str | None = typer.Option(
        None,
        "--toolsets",
        "-t",
        help="Comma-separated toolsets of API sessions; '' for none. Default: toolsets.",
    ),
    allow_terminal: bool = typer.Option(
        False, "--allow-terminal", help="Let API sessions run shell commands."
    ),
    workspace: Path | None = typer.Option(
        None,
        "--workspace",
        help="Folder of the keys' workspaces (<folder>/keys/<name>). Default: $GROVE_HOME/workspaces/serve.",
    ),
    approvals: str = typer.Option(
        "dashboard",
        "--approvals",
        help="dashboard: questions wait for an answer in the dashboard (no answer in time = deny); "
        "deny: nobody is asked, they are denied at once.",
    ),
    allowed_host: list[str] = typer.Option(
        None,
        "--allowed-host",
        help="A host name requests may be addressed to besides 127.0.0.1 and localhost (a proxy's name); "
        "repeat for more. On loopback, other names are refused (DNS rebinding).",
    ),
    cron: bool = typer.Option(False, "--cron", help="Also run the cron scheduler in this process."),
    openapi: bool = typer.Option(
        False,
        "--openapi",
        help="Serve the API's OpenAPI spec at /openapi.json (it needs a key). Default: off.",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help=f"Model of API sessions (default: settings' model). {spec_syntaxes()}."
    ),
) -> None:
    """Start the API server. Make a client key first: grove serve keys add NAME

    Then point any OpenAI client at http://127.0.0.1:8765/v1 with that key; send a header
    X-Grove-Conversation: <id> (or metadata.conversation_id), or resend the history, to continue a
    conversation with its memory; `user` is attribution only."""
    if ctx.invoked_subcommand is not None:
        return
    if approvals not in ("dashboard", "deny"):
        fail(f"--approvals {approvals!r}: use dashboard or deny", 2)
    _require_extra()
    from grove.serve.app import ServeOptions, build_app
    from grove.serve.server import is_loopback, run_foreground
    from grove.serve.state import ServeState
    from grove.serve.turns import TurnOptions

    settings = load()
    if model:
        from grove.llm.spec import parse_spec

        parse_spec(model)  # a bad spec is a usage error now, not a 502 on the first request
        settings = dataclasses.replace(settings, model=model)
    keys = _keys()
    if keys.count() == 0:
        fail(
            "no client keys yet, and grove serve never runs without one. Make one (it is shown once):\n"
            "  grove serve keys add my-laptop\nthen start grove serve again and send it as "
            "'Authorization: Bearer <key>' (the OpenAI SDK's api_key).",
            2,
        )
    if not is_loopback(host):
        print(
            f"grove: warning: listening on {host}: other machines can reach this server. Requests need a key, "
            "but traffic is plain HTTP: put a TLS proxy in front, or bind 127.0.0.1.",
            file=sys.stderr,
        )
    state = ServeState(settings, host=host, port=port)
    options = ServeOptions(
        rate_per_minute=rate,
        burst=burst,
        cors_origins=list(cors_origin or []),
        allowed_hosts=_allowed_hosts(host, list(allowed_host or [])),
        openapi=openapi,
        turns=TurnOptions(
            toolsets=split_csv(toolsets),
            allow_terminal=allow_terminal,
            workspace_root=workspace,
            ask_dashboard=approvals == "dashboard" and _dashboard_available(),
        ),
    )
    api = build_app(state, options)
    stop_cron = _start_cron(settings) if cron else None

    def ready(bound: int) -> None:
        state.port = bound
        shown = f"[{host}]" if ":" in host else host
        print(f"grove serve: OpenAI base_url http://{shown}:{bound}/v1 (Ctrl-C stops)", file=sys.stderr)
        if _dashboard_available():
            print(
                f"grove serve: dashboard http://{shown}:{bound}/ (log in with a client key)", file=sys.stderr
            )

    try:
        run_foreground(api, host, port, ready)
    finally:
        if stop_cron is not None:
            stop_cron()


def _allowed_hosts(host: str, extra: list[str]) -> list[str] | None:
    """Host names answered: on a loopback bind (127.x, ::1, localhost) only local names and --allowed-host,
    so a web page whose name is rebound to this machine (DNS rebinding) is refused; else any."""
    from grove.serve.server import is_loopback

    if not is_loopback(host.strip("[]")):
        return extra or None
    bound = host.strip("[]").lower()
    names = ["127.0.0.1", "localhost", "[::1]", f"[{bound}]" if ":" in bound else bound]
    return list(dict.fromkeys([*names, *(e.lower() for e in extra)]))


def _dashboard_available() -> bool:
    try:
        from grove.serve.dashboard import build_router  # noqa: F401
    except ImportError:
        return False
    return True


def _start_cron(settings: Settings) -> Callable[[], None]:
    """The cron scheduler in a thread of this process; returns the function that stops it."""
    import threading

    from grove.cron.scheduler import CronScheduler

    scheduler = CronScheduler(settings)
    stop = threading.Event()
    thread = threading.Thread(target=scheduler.run_forever, args=(stop,), name="grove-cron", daemon=True)
    thread.start()
    print("grove serve: cron scheduler running in this process", file=sys.stderr)

    def halt() -> None:
        stop.set()
        thread.join(30)
        scheduler.close()

    return halt


@keys_app.command("add")
def keys_add(
    name: str = typer.Argument(..., help="A name for the client, e.g. open-webui or my-laptop."),
    rate: float | None = typer.Option(
        None, "--rate", help="This key's requests per minute (else --rate of serve)."
    ),
    admin: bool = typer.Option(
        False,
        "--admin",
        help="Let this key see every session and approval, and the dashboard's skills, memory, kanban, "
        "evolution and settings. Default: the key sees only its own sessions and approvals.",
    ),
) -> None:
    """Make a client key and print it once (only its hash is kept)."""
    from grove.serve.keys import KeyProblem

    try:
        key = _keys().add(name, rate, admin=admin)
    except KeyProblem as e:
        fail(str(e), 2)
    print(key)
    print(
        f"grove: key {name!r} made. It is shown only this once: store it in your client now "
        "(OpenAI SDK: api_key=..., base_url=http://127.0.0.1:8765/v1).",
        file=sys.stderr,
    )


@keys_app.command("list")
def keys_list() -> None:
    """The client keys: name, id, rate, when made, when last used (never the keys themselves)."""
    rows = _keys().list()
    if not rows:
        print("no client keys; make one with: grove serve keys add NAME")
        return
    for k in rows:
        made = datetime.fromtimestamp(k.created_at).strftime("%Y-%m-%d %H:%M")
        used = (
            datetime.fromtimestamp(k.last_used_at).strftime("%Y-%m-%d %H:%M") if k.last_used_at else "never"
        )
        rate = f"{k.rate_per_minute:g}/min" if k.rate_per_minute else "default rate"
        role = "admin" if k.admin else "own sessions"
        print(f"{k.name}\tgsk_{k.key_id}_…\t{role}\t{rate}\tmade {made}\tlast used {used}")


@keys_app.command("admin")
def keys_admin(
    name: str = typer.Argument(..., help="The key's name (grove serve keys list)."),
    off: bool = typer.Option(
        False, "--off", help="Take admin away: the key sees only its own sessions again."
    ),
) -> None:
    """Make a key an admin (it sees every session and approval), or with --off a plain key again. Keys made
    before grove knew owners are plain keys: make the operator's key an admin with this."""
    from grove.serve.keys import KeyProblem

    try:
        _keys().set_admin(name, not off)
    except KeyProblem as e:
        fail(str(e), 2)
    print(f"key {name!r} is {'a plain key (its own sessions)' if off else 'an admin'}")


@keys_app.command("remove")
def keys_remove(name: str = typer.Argument(..., help="The key's name (grove serve keys list).")) -> None:
    """Remove a client key: requests with it get 401 at once; its conversations' links are dropped."""
    from grove.serve.keys import KeyProblem

    try:
        _keys().remove(name)
    except KeyProblem as e:
        fail(str(e), 2)
    print(f"removed key {name!r}")
