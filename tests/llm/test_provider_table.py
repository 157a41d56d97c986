"""The provider table: a provider added as one row is parsed, keyed, listed, auto-detected and called; every real
row is consistent; config reads the table without importing grove.llm."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.llm.samples import FAST

from grove import providers_table
from grove.config import KEY_ENVS, ConfigError, ProviderConfig, Settings
from grove.llm.openai_compat import OpenAICompatModel
from grove.llm.spec import ModelSpec, api_key_for, build_model, load_factory, parse_spec, spec_help
from grove.providers_table import PROVIDERS, Provider

HELLO = [{"role": "user", "content": "hello"}]
ROOT = Path(__file__).resolve().parents[2]
KEY_VARS = {p.key_env for p in PROVIDERS if p.key_env} | {"FAKEPROV_API_KEY"}


def fake_row(url: str) -> Provider:
    """A new provider speaking the OpenAI format: all it takes is this row."""
    return Provider(
        "fakeprov",
        api="openai",
        factory=providers_table.OPENAI,
        syntax="fakeprov:<model>",
        help="a fake OpenAI-format provider",
        key_env="FAKEPROV_API_KEY",
        key_required=True,
        base_url=url,
        default_model="fake-large",
    )


@pytest.fixture
def with_fake_row(
    openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> FakeOpenAIServer:
    monkeypatch.setenv("GROVE_HOME", str(tmp_path))
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(providers_table, "PROVIDERS", (*PROVIDERS, fake_row(openai_server.url)))
    return openai_server


def test_a_provider_added_as_one_row_parses_is_keyed_listed_and_auto_detected(
    with_fake_row: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert parse_spec("fakeprov:fake-large") == ModelSpec("fakeprov", "fake-large", with_fake_row.url)
    assert str(parse_spec("fakeprov:fake-large")) == "fakeprov:fake-large"
    assert "fakeprov:<model>" in spec_help()
    (line,) = [ln for ln in providers_table.describe().splitlines() if "fakeprov:<model>" in ln]
    assert line.rstrip().endswith("a fake OpenAI-format provider")
    assert api_key_for("fakeprov", ProviderConfig()) == (None, "FAKEPROV_API_KEY")
    assert providers_table.key_envs()["fakeprov"] == "FAKEPROV_API_KEY"
    settings = Settings(home=tmp_path)
    assert settings.resolved_model() == "local"  # no key set: the local model
    with pytest.raises(ConfigError, match="export FAKEPROV_API_KEY="):
        build_model("fakeprov:fake-large", settings)
    monkeypatch.setenv("FAKEPROV_API_KEY", "sk-fake")
    assert api_key_for("fakeprov", ProviderConfig()) == ("sk-fake", "FAKEPROV_API_KEY")
    assert settings.resolved_model() == "fakeprov:fake-large"  # its default model, once its key is set


@pytest.mark.parametrize("configured", ["http", "sdk"])
def test_a_provider_added_as_one_row_is_called(
    with_fake_row: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, configured: str
) -> None:
    monkeypatch.setenv("FAKEPROV_API_KEY", "sk-fake")
    settings = Settings(home=tmp_path, providers={"fakeprov": ProviderConfig(transport=configured)})  # type: ignore[arg-type]
    with_fake_row.queue(FakeReply(text="from the new row"))
    model = build_model("fakeprov:fake-large", settings)
    assert isinstance(model, OpenAICompatModel) and model.transport == configured
    assert model.complete(HELLO, [], FAST).text == "from the new row"
    (request,) = with_fake_row.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-fake"
    assert request.body["model"] == "fake-large"


def test_an_unknown_provider_lists_every_row_with_its_help() -> None:
    with pytest.raises(ConfigError) as info:
        parse_spec("nosuch:model")
    lines = str(info.value).splitlines()
    for row in PROVIDERS:
        assert any(row.syntax in line and row.help in line for line in lines)


@pytest.mark.parametrize("row", PROVIDERS, ids=[p.name for p in PROVIDERS])
def test_every_row_is_consistent(row: Provider) -> None:
    assert [p.name for p in PROVIDERS].count(row.name) == 1
    assert row.syntax.startswith(row.name) and row.help
    assert callable(load_factory(row.factory))
    assert not row.key_required or row.key_env, "a required key needs a variable to come from"
    assert not row.default_model or row.key_env, "auto-detection starts from a key"
    if row.key_env:
        assert KEY_ENVS[row.name] == row.key_env  # config's table is the provider table's


def test_every_rows_spec_parses_and_prints_back() -> None:
    for row in PROVIDERS:
        text = f"{row.name}:some-model" + ("@http://127.0.0.1:8000/v1" if row.url_in_spec else "")
        assert str(parse_spec(text)) == text
        if row.bare:
            assert str(parse_spec(row.name)) == row.name
        else:
            with pytest.raises(ConfigError):
                parse_spec(row.name)


def test_auto_detection_follows_table_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    detected = [p for p in PROVIDERS if p.default_model]
    assert len(detected) >= 2
    for row in reversed(detected):  # each added key outranks the ones after it in the table
        monkeypatch.setenv(row.key_env or "", "k")
        assert Settings(home=tmp_path).resolved_model() == f"{row.name}:{row.default_model}"


def test_run_help_lists_every_provider() -> None:
    from typer.testing import CliRunner

    from grove.cli.main import build_app

    out = CliRunner().invoke(build_app(["run"]), ["run", "--help"], terminal_width=400).output
    flat = " ".join(out.replace("│", " ").split())
    for row in PROVIDERS:
        assert row.syntax in flat


def test_config_reads_the_table_without_importing_grove_llm() -> None:
    code = "import sys, grove.config; print(sorted(m for m in sys.modules if m.startswith('grove.llm')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_a_configured_base_url_lifts_the_key_requirement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="export OPENAI_API_KEY="):
        build_model("openai:gpt-5.4-mini", Settings(home=tmp_path))
    proxy = Settings(home=tmp_path, providers={"openai": ProviderConfig(base_url="http://127.0.0.1:9/v1")})
    assert build_model("openai:gpt-5.4-mini", proxy).api_key is None  # type: ignore[attr-defined]
