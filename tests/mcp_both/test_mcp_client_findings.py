"""Issue 33's findings about grove's MCP client that need no live server: a text resource sent as a blob is
shown as its text."""

from __future__ import annotations

import base64
from types import SimpleNamespace

from grove.mcp_client.render import _contents


def test_a_text_resource_sent_as_a_blob_is_shown_as_text() -> None:
    blob = base64.b64encode(b"hello from a file").decode()
    item = SimpleNamespace(uri="file:///a.txt", mime_type="text/plain", blob=blob, text=None)
    assert _contents(item) == "hello from a file"


def test_a_binary_blob_is_still_described_not_inlined() -> None:
    item = SimpleNamespace(uri="file:///a.png", mime_type="image/png", blob="iVBORw0KGgo=", text=None)
    assert "not shown" in _contents(item)


def test_after_a_401_mcp_test_points_at_no_missing_log(capsys, grove_home) -> None:  # type: ignore[no-untyped-def]
    """`grove mcp test` pointed an HTTP server's 401 at a stdio log that does not exist."""
    import http.server
    import threading

    import pytest
    from tests.clirun import grove

    pytest.importorskip("mcp.client.streamable_http")

    class Refuse(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer error="invalid_token"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_DELETE = do_POST
        log_message = lambda *a: None  # noqa: E731

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
        assert grove(capsys, "mcp", "add", "remote", "--url", url)[0] == 0
        code, _, err = grove(capsys, "mcp", "test", "remote")
    finally:
        httpd.shutdown()
    assert code != 0 and "mcp-remote.log" not in err


def test_the_reference_servers_own_listings_are_not_flagged(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """mcp_list of the reference servers (their tools, schemas, resources and prompts) was quarantined as an
    injection; it reaches the model as it is."""
    import pytest

    pytest.importorskip("mcp.client.stdio")
    from grove.config.mcp import McpServerConfig
    from grove.mcp_client.manager import McpManager
    from grove.mcp_client.tools import McpTools
    from grove.tools.context import ToolContext

    servers = [
        McpServerConfig(name="time", command="mcp-server-time", trust="trusted", timeout=30),
        McpServerConfig(name="git", command="mcp-server-git", trust="trusted", timeout=30),
    ]
    manager = McpManager(servers, tmp_path)
    try:
        mcp_list = McpTools(servers, manager, tmp_path).lazy_tools()[0]
        for name in ("time", "git"):
            result = mcp_list.call(ToolContext(workspace=tmp_path), {"server": name})
            assert result.ok and "[grove security:" not in result.content, result.content[:300]
            assert "args=" in result.content  # the listing itself, schemas included
    finally:
        manager.close()
