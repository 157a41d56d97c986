"""`grove mcp add | list | remove | test` as a new user types them: what is written, what is refused (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.clirun import grove


def test_add_list_test_remove(capsys: pytest.CaptureFixture[str], grove_home: Path) -> None:
    pytest.importorskip("mcp.client.stdio")
    code, out, _ = grove(capsys, "mcp", "add", "time", "--", "mcp-server-time", "--local-timezone", "UTC")
    assert code == 0 and "added MCP server 'time'" in out
    code, out, _ = grove(capsys, "mcp", "list")
    assert code == 0 and "time  stdio: mcp-server-time --local-timezone UTC  trust=ask" in out
    assert "not listed yet" in out
    code, out, _ = grove(capsys, "mcp", "test", "time")
    assert code == 0 and "time__get_current_time" in out
    assert "2 tools" in grove(capsys, "mcp", "list")[1]  # the list is cached now
    code, out, _ = grove(capsys, "mcp", "remove", "time")
    assert code == 0 and not (grove_home / "cache" / "mcp" / "time.json").exists()
    assert "no MCP servers" in grove(capsys, "mcp", "list")[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "x"], "give a command after --"),
        (["add", "x", "--url", "http://127.0.0.1:1/mcp", "--", "cmd"], "not both"),
        (["add", "a__b", "--", "cmd"], "server name"),
        (["add", "x", "--trust", "maybe", "--", "cmd"], "trust"),
        (["add", "x", "-e", "NOEQUALS", "--", "cmd"], "NAME=VALUE"),
        (["add", "x", "-e", "API_KEY=sk-123456", "--", "cmd"], "look like secrets"),
        (["add", "x", "--url", "http://h/mcp", "-H", "Authorization: Bearer abc"], "look like secrets"),
        (["remove", "nope"], "no MCP server named 'nope'"),
        (["test", "nope"], "no MCP server named 'nope'"),
    ],
)
def test_bad_input_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], grove_home: Path, args: list[str], message: str
) -> None:
    code, _, err = grove(capsys, "mcp", *args)
    assert code == 2 and message in err
    assert not (grove_home / "config.yaml").exists()


def test_a_server_that_cannot_start_fails_with_where_to_look(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("mcp.client.stdio")
    assert grove(capsys, "mcp", "add", "broken", "--timeout", "20", "--", "false")[0] == 0
    code, _, err = grove(capsys, "mcp", "test", "broken")
    assert code == 1 and "broken" in err and "mcp-broken.log" in err


def test_mcp_http_on_a_busy_port_is_one_grove_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33: a busy port ended `grove mcp serve --http` in a traceback (exit 3)."""
    pytest.importorskip("uvicorn", reason="the MCP HTTP transport needs uvicorn")
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        code, _, err = grove(capsys, "mcp", "serve", "--http", "--port", str(taken.getsockname()[1]))
    assert code in (1, 2) and err.startswith("grove: ") and "in use" in err and "Traceback" not in err
