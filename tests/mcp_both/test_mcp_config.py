"""mcp.servers in config.yaml: written checked and atomically, names that cannot become tool names refused,
literal secrets never written (a ${VAR} reference instead), read back through the settings cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.config import ConfigError, load_settings
from grove.config.mcp import McpServerConfig, expand_refs, mcp_servers, secrets_as_references
from grove.config.mcp_store import add_server, remove_server


def test_added_server_reads_back_named_by_its_key(grove_home: Path) -> None:
    path = add_server(
        McpServerConfig(name="time", command="mcp-server-time", args=["--local-timezone", "UTC"])
    )
    assert "url" not in path.read_text()  # defaults are left out of config.yaml
    for _ in range(2):  # the second read comes from the settings cache
        (server,) = mcp_servers(load_settings())
        assert (server.name, server.command, server.args, server.trust) == (
            "time",
            "mcp-server-time",
            ["--local-timezone", "UTC"],
            "ask",
        )
    assert remove_server("time") and not remove_server("time")
    assert mcp_servers(load_settings()) == []


def test_a_second_server_of_one_name_is_refused_unless_replacing(grove_home: Path) -> None:
    add_server(McpServerConfig(name="a", command="x"))
    with pytest.raises(ConfigError, match="exists"):
        add_server(McpServerConfig(name="a", url="http://127.0.0.1:1/mcp"))
    add_server(McpServerConfig(name="a", url="http://127.0.0.1:1/mcp"), replace_existing=True)
    assert mcp_servers(load_settings())[0].transport == "http"


@pytest.mark.parametrize("name", ["a__b", "-x", "has space", "x" * 40, "dots.bad"])
def test_names_that_cannot_be_tool_prefixes_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="server name"):
        McpServerConfig(name=name, command="x")


def test_a_broken_name_in_config_yaml_is_a_clear_error(grove_home: Path) -> None:
    grove_home.mkdir(parents=True, exist_ok=True)
    (grove_home / "config.yaml").write_text("mcp:\n  servers:\n    a__b:\n      command: x\n")
    with pytest.raises(ConfigError, match="a__b"):
        load_settings()


def test_command_and_url_are_one_or_the_other() -> None:
    with pytest.raises(ValueError, match="either"):
        McpServerConfig(name="a")
    with pytest.raises(ValueError, match="either"):
        McpServerConfig(name="a", command="x", url="http://h/mcp")
    with pytest.raises(ValueError, match="http"):
        McpServerConfig(name="a", url="file:///etc/passwd")


def test_literal_secrets_are_never_written(grove_home: Path) -> None:
    leaky = McpServerConfig(
        name="gh",
        command="x",
        env={"GITHUB_TOKEN": "ghp_" + "a1" * 18},
        headers={"Authorization": "Bearer abc"},
    )
    with pytest.raises(ConfigError, match="secrets"):
        add_server(leaky)
    assert not (grove_home / "config.yaml").exists()
    safe, moved = secrets_as_references(leaky)
    assert safe.env == {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    assert safe.headers == {"Authorization": "Bearer ${GH_AUTHORIZATION}"}
    assert moved == {"GITHUB_TOKEN": "env.GITHUB_TOKEN", "GH_AUTHORIZATION": "headers.Authorization"}
    text = add_server(safe).read_text()
    assert "ghp_" not in text and "abc" not in text


def test_references_expand_from_the_environment_and_a_missing_one_is_named() -> None:
    assert expand_refs("Bearer ${T}", {"T": "v"}) == "Bearer v"
    with pytest.raises(KeyError, match="MISSING"):
        expand_refs("${MISSING}", {})


def test_without_the_sdk_a_configured_server_is_a_notice_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from grove.config import Settings
    from grove.config.mcp import McpConfig
    from grove.mcp_client.session_tools import add_mcp_tools
    from grove.tools.registry import ToolRegistry

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    notices: list[str] = []
    settings = Settings(mcp=McpConfig(servers={"time": McpServerConfig(command="mcp-server-time")}))
    registry = ToolRegistry()
    assert add_mcp_tools(registry, settings, notices.append) == 0 and len(registry) == 0
    assert notices and "grove-agent[mcp]" in notices[0]
    assert (
        add_mcp_tools(registry, Settings(), notices.append) == 0 and len(notices) == 1
    )  # none configured: silent


def test_mcp_call_is_gated_unless_every_server_is_trusted() -> None:
    from grove.mcp_client.tools import McpTools

    def gated(*trusts: str) -> bool:
        servers = [McpServerConfig(name=f"s{i}", command="x", trust=t) for i, t in enumerate(trusts)]  # type: ignore[arg-type]
        call = next(t for t in McpTools(servers, None, None).lazy_tools() if t.name == "mcp_call")  # type: ignore[arg-type]
        return call.needs_approval

    assert not gated("trusted", "trusted")  # sub-agents may then be given it
    assert gated("trusted", "ask") and gated("untrusted")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GH", "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"),  # a GitHub token under a harmless name
        ("OPENAI", "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12"),
        ("DATABASE_URL", "postgres://app:S3cr3t-pw!@db.internal:5432/app"),
    ],
)
def test_a_literal_secret_is_refused_by_its_shape_whatever_its_name(
    grove_home: Path, capsys: pytest.CaptureFixture[str], name: str, value: str
) -> None:
    """Issue 33: `grove mcp add -e` wrote known-format secrets to config.yaml when the name looked harmless."""
    from tests.clirun import grove

    from grove.cli.mcp import secret_shaped

    code, _, err = grove(capsys, "mcp", "add", "s", "-e", f"{name}={value}", "--", "some-server")
    assert code == 2 and "secret" in err
    config = grove_home / "config.yaml"
    assert not config.exists() or value not in config.read_text()
    moved, names = secrets_as_references(
        McpServerConfig(name="s", command="x", env={name: value}), secret_shaped
    )
    assert value not in str(moved.env) and names


def test_plain_values_under_harmless_names_are_kept(grove_home: Path) -> None:
    add_server(McpServerConfig(name="s", command="x", env={"LOG_LEVEL": "debug", "REGION": "eu-west-1"}))
    assert mcp_servers(load_settings())[0].env == {"LOG_LEVEL": "debug", "REGION": "eu-west-1"}
