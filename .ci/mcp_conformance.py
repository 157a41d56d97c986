"""The MCP conformance suite (npm @modelcontextprotocol/conformance) against grove's MCP server, with the expected
failures listed and explained in .ci/mcp_conformance_expected.yaml. The suite sends no bearer token, so the
server runs here as `grove mcp serve --http` builds it minus its token check (grove's own layer, tested apart)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
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
    node = os.environ.get("GROVE_CONFORMANCE_NODE", "node")
    suite = os.environ.get("GROVE_CONFORMANCE_JS") or str(
        Path.home()
        / ".cache/grove-tests/mcp-conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    )
    command = [node, suite, "server", "--url", f"http://127.0.0.1:{port}{PATH}"]
    command += ["--expected-failures", str(HERE / "mcp_conformance_expected.yaml"), *sys.argv[1:]]
    try:
        return subprocess.run(command, check=False).returncode
    finally:
        userver.should_exit = True
        thread.join(10)


if __name__ == "__main__":
    sys.exit(main())
