"""`grove mcp add | list | remove | test | serve`: the MCP servers grove uses, and grove as an MCP server."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from grove.cli.common import fail, load

app = typer.Typer(
    help="MCP: connect grove to MCP servers (add, list, remove, test) or offer grove as one (serve).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

EXTRA_HINT = "the MCP SDK is not installed: pip install 'grove-agent[mcp]'"


def _pairs(values: list[str] | None, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values or []:
        key, sep, value = item.partition("=") if what == "env" else item.partition(":")
        if not sep or not key.strip():
            example = (
                "GITHUB_TOKEN='${GITHUB_TOKEN}'" if what == "env" else "'Authorization: Bearer ${TOKEN}'"
            )
            fail(
                f"--{what} '{item}' is not {'NAME=VALUE' if what == 'env' else 'Name: value'}; e.g. {example}",
                2,
            )
        out[key.strip()] = value.strip()
    return out


def _require_sdk() -> None:
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        fail(EXTRA_HINT, 2)


@app.command("add")
def add(
    name: str = typer.Argument(..., help="A short name; its tools are called <name>__<tool>."),
    command: list[str] = typer.Argument(
        None, help="A stdio server: the command and its arguments, after --."
    ),
    url: str | None = typer.Option(None, "--url", help="A streamable HTTP server's endpoint instead."),
    env: list[str] = typer.Option(
        None, "--env", "-e", help="NAME=VALUE for a stdio server; secrets as ${VAR}."
    ),
    header: list[str] = typer.Option(
        None, "--header", "-H", help="'Name: value' HTTP header; secrets as ${VAR}."
    ),
    trust: str = typer.Option(
        "ask", "--trust", help="trusted | ask | untrusted: who approves its tool calls."
    ),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds per call (and to start)."),
    eager: bool = typer.Option(False, "--eager", help="Register each tool by name (costs prompt tokens)."),
    tool: list[str] = typer.Option(None, "--tool", help="Only this tool (repeatable); default all."),
    replace: bool = typer.Option(False, "--replace", help="Overwrite a server of the same name."),
) -> None:
    """Add an MCP server, e.g. `grove mcp add time -- uvx mcp-server-time` or `grove mcp add docs --url URL`."""
    from grove.config.mcp import McpServerConfig
    from grove.config.mcp_store import add_server

    cmd = list(command or [])
    if bool(cmd) == bool(url):
        fail("give a command after -- (stdio server) or --url (HTTP server), not both", 2)
    try:
        server = McpServerConfig(
            name=name,
            command=cmd[0] if cmd else None,
            args=cmd[1:],
            env=_pairs(env, "env"),
            url=url,
            headers=_pairs(header, "header"),
            # a str from the command line: pydantic checks it is one of the trust levels (ValueError below)
            trust=trust,  # pyright: ignore[reportArgumentType]
            timeout=timeout,
            eager=eager,
            tools=list(tool or []),
        )
    except ValueError as e:
        fail(str(e), 2)
    path = add_server(server, replace_existing=replace, shaped=secret_shaped)
    where = f"{server.command} {' '.join(server.args)}".strip() if server.command else server.url
    print(f"added MCP server '{name}' ({server.transport}: {where}; trust {server.trust}) to {path}")
    print(f"check it with: grove mcp test {name}")


@app.command("list")
def list_servers() -> None:
    """List the configured MCP servers."""
    from grove.config.mcp import mcp_servers
    from grove.mcp_client.cache import load_tool_list

    settings = load()
    servers = mcp_servers(settings)
    if not servers:
        print("no MCP servers; add one with: grove mcp add NAME -- COMMAND [ARGS...]  (or --url URL)")
        return
    for s in servers:
        where = f"{s.command} {' '.join(s.args)}".strip() if s.command else s.url
        tools = load_tool_list(settings.home, s)
        known = f"{len(tools)} tools" if tools is not None else "tools not listed yet (grove mcp test)"
        state = "" if s.enabled else " [disabled]"
        print(
            f"{s.name}{state}  {s.transport}: {where}  trust={s.trust}{' eager' if s.eager else ''}  {known}"
        )


@app.command("remove")
def remove(name: str = typer.Argument(..., help="The server's name.")) -> None:
    """Remove an MCP server from config.yaml."""
    from grove.config.mcp_store import remove_server
    from grove.mcp_client.cache import cache_path

    if not remove_server(name):
        fail(f"no MCP server named '{name}'; `grove mcp list` shows them", 2)
    cache_path(load().home, name).unlink(missing_ok=True)
    print(f"removed MCP server '{name}'")


@app.command("test")
def test(name: str = typer.Argument(..., help="The server's name.")) -> None:
    """Start (or reach) a server, list its tools and save the list (later sessions then start it only when used)."""
    from grove.config.mcp import mcp_servers

    settings = load()
    server = next((s for s in mcp_servers(settings) if s.name == name), None)
    if server is None:
        fail(f"no MCP server named '{name}'; `grove mcp list` shows them", 2)
    _require_sdk()
    from grove.mcp_client.connection import McpUnavailable
    from grove.mcp_client.manager import McpManager

    manager = McpManager([server], settings.home)
    started = time.monotonic()
    try:
        tools = manager.list_tools(name)
    except McpUnavailable as e:
        log = settings.home / "logs" / f"mcp-{name}.log"
        # a stdio server's stderr is its log (an HTTP server's log messages go there too, but its answer to a
        # failed connection, such as a 401 for a wrong token header, is in `e`)
        fail(f"{e} (the server's own errors are in {log})" if server.command and log.exists() else str(e))
    finally:
        manager.close()
    print(f"{name}: connected in {time.monotonic() - started:.2f}s, {len(tools)} tools")
    for t in tools:
        print(
            f"  {name}__{t['name']}: {(t['description'] or '').splitlines()[0][:100] if t['description'] else ''}"
        )


def secret_shaped(value: str) -> bool:
    """A value redaction would mask (a known token format, a URL with a password): a secret whatever its name."""
    from grove.security.secrets.redact import redact

    return redact(value) != value


@app.command("serve")
def serve(
    http: bool = typer.Option(False, "--http", help="Streamable HTTP on 127.0.0.1 instead of stdio."),
    port: int = typer.Option(8765, "--port", help="With --http: the port (0 = any free one)."),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Model spec for run_task; default: settings."
    ),
    workspace: Path | None = typer.Option(
        None, "--workspace", "-w", help="run_task's workspace; default: here."
    ),
) -> None:
    """Offer grove to MCP clients: skills, memory, session search and run_task (unattended policy)."""
    _require_sdk()
    from grove.mcp_server.server import GroveService, build_server

    settings = load()
    service = GroveService(settings, (workspace or Path.cwd()).resolve(), model)
    server = build_server(service)
    if not http:
        server.run("stdio")
        return
    import os

    from grove.mcp_server.http import PATH, new_token, serve_http
    from grove.serve.bind import listen

    sock = listen("127.0.0.1", port)  # a busy port: one grove: line, before anything starts
    token = os.environ.get("GROVE_MCP_TOKEN") or new_token()

    def ready(bound: int) -> None:
        print(f"grove MCP server on http://127.0.0.1:{bound}{PATH}", flush=True)
        if not os.environ.get("GROVE_MCP_TOKEN"):
            print(
                f"bearer token: {token}  (send 'Authorization: Bearer <token>'; set GROVE_MCP_TOKEN to fix it)",
                flush=True,
            )
        print("stop with Ctrl-C", file=sys.stderr, flush=True)

    serve_http(server, port, token, ready, sock=sock)
