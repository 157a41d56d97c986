"""Providers as spec.build_model makes them, and the start-up rule: SDKs load only when a call needs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

from grove.config import ConfigError, ProviderConfig, Settings, load_settings, set_config_value
from grove.llm.openai_compat import OpenAICompatModel
from grove.llm.spec import build_model
from grove.llm.types import ModelSettings

HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("GROVE_HOME", str(tmp_path))
    for var in (
        "GROVE_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    return Settings(home=tmp_path)


@pytest.mark.parametrize("configured", [None, "sdk", "http"])
def test_openai_compat_spec_reaches_a_keyless_server(
    openai_server: FakeOpenAIServer, settings: Settings, configured: str | None
) -> None:
    if configured:
        settings.providers["openai-compat"] = ProviderConfig(transport=configured)
    openai_server.queue(FakeReply(text="wired"))
    model = build_model(f"openai-compat:fake-model@{openai_server.url}", settings)
    assert isinstance(model, OpenAICompatModel) and model.transport == (
        configured or "http"
    )  # "auto" in a one-shot process
    assert model.complete(HELLO, [], ModelSettings(timeout=5)).text == "wired"
    assert openai_server.requests[0].body["model"] == "fake-model"


def test_transport_is_set_with_config_set(settings: Settings) -> None:
    set_config_value("providers.openai.transport", "sdk")
    assert load_settings().providers["openai"].transport == "sdk"
    with pytest.raises(ConfigError, match="transport"):
        set_config_value("providers.openai.transport", "curl")
    assert load_settings().providers["openai"].transport == "sdk"  # the refused value was not written


def test_anthropic_spec_with_a_configured_base_url(
    anthropic_server: FakeAnthropicServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROVE_HOME", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wired")
    settings = Settings(
        home=tmp_path,
        providers={"anthropic": ProviderConfig(base_url=anthropic_server.url, context_window=50_000)},
    )
    anthropic_server.queue(FakeReply(text="claude says hi"))
    model = build_model("anthropic:claude-haiku-4-5", settings)
    assert model.context_window == 50_000
    assert model.complete(HELLO, [], ModelSettings(timeout=5)).text == "claude says hi"
    assert anthropic_server.requests[0].body["model"] == "claude-haiku-4-5"


def test_importing_providers_does_not_import_their_sdks() -> None:
    code = (
        "import sys, grove.llm.openai_compat, grove.llm.anthropic_model, grove.llm.pricing;"
        "print(sorted(m for m in ('openai', 'anthropic', 'httpx', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
