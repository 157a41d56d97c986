"""The MCP conformance suite (npm @modelcontextprotocol/conformance) against both of grove's MCP sides, with the
expected failures listed and explained in .ci/mcp_conformance_expected.yaml:

- server: grove's MCP server. The suite sends no bearer token, so the server runs here as `grove mcp serve --http`
  builds it minus its token check (grove's own layer, tested apart).
- client: grove's MCP client (.ci/mcp_conformance_client.py), one scenario at a time (the suite's own parallel
  run starts every client at once, and a loaded machine then times the core ones out), the OAuth scenarios
  together (grove's client has no OAuth: they fail at once).

`python .ci/mcp_conformance.py [--only server|client] [suite options for the server run]`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent
EXPECTED = HERE / "mcp_conformance_expected.yaml"
CLIENT = f"{sys.executable} {HERE / 'mcp_conformance_client.py'}"


def suite() -> list[str]:
    node = os.environ.get("GROVE_CONFORMANCE_NODE", "node")
    js = os.environ.get("GROVE_CONFORMANCE_JS") or str(
        Path.home()
        / ".cache/grove-tests/mcp-conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    )
    return [node, js]


def run_server(extra: list[str]) -> int:
    import uvicorn

    home = Path(tempfile.mkdtemp(prefix="grove-mcp-conformance-"))
    os.environ["GROVE_HOME"] = str(home / "home")
    from grove.cli.common import load
    from grove.mcp_server.http import PATH, http_app
    from grove.mcp_server.server import GroveService, build_server

    settings = load()
    server = build_server(GroveService(settings, workspace=home / "ws"))
    app = http_app(server)
    userver = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=userver.run, daemon=True)
    thread.start()
    while not userver.started:
        time.sleep(0.05)
    port = userver.servers[0].sockets[0].getsockname()[1]
    command = [*suite(), "server", "--url", f"http://127.0.0.1:{port}{PATH}"]
    try:
        return subprocess.run(
            [*command, "--expected-failures", str(EXPECTED), *extra], check=False
        ).returncode
    finally:
        userver.should_exit = True
        thread.join(10)


def client_scenarios() -> list[str]:
    listed = subprocess.run([*suite(), "list", "--client"], capture_output=True, text=True, check=True).stdout
    return re.findall(r"^\s*- (\S+)", listed, re.MULTILINE)


def run_client() -> int:
    """Each non-OAuth scenario alone, then the OAuth suite; a summary line of each side's counts."""
    base = [*suite(), "client", "--command", CLIENT, "--expected-failures", str(EXPECTED)]
    failed = 0
    for scenario in [s for s in client_scenarios() if not s.startswith("auth/")]:
        print(f"=== client scenario: {scenario} ===", flush=True)
        failed |= subprocess.run([*base, "--scenario", scenario], check=False).returncode
    print("=== client suite: auth ===", flush=True)
    failed |= subprocess.run([*base, "--suite", "auth"], check=False).returncode
    return failed


def main(argv: list[str]) -> int:
    only = None
    if argv[:1] == ["--only"] and len(argv) > 1:
        only, argv = argv[1], argv[2:]
    code = 0
    if only in (None, "server"):
        code |= run_server(argv)
    if only in (None, "client"):
        code |= run_client()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
