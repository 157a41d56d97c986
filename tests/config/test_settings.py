"""Settings from config.yaml and GROVE_* variables; `config set` validates, refuses secrets, writes atomically."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grove.config import ConfigError, load_settings, set_config_value
from grove.llm.spec import ModelSpec, parse_spec


def test_defaults_pick_local_without_keys(grove_home: Path) -> None:
    s = load_settings()
    assert s.home == grove_home and s.resolved_model() == "local"
    assert s.toolsets == ["files", "todo", "skills", "memory", "sessions"] and s.max_iterations == 50


def test_a_present_key_picks_that_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert load_settings().resolved_model().startswith("openai:")


def test_yaml_then_env_override(grove_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    grove_home.mkdir()
    (grove_home / "config.yaml").write_text(
        "model: openai:gpt-4o\nretry:\n  attempts: 2\ntoolsets: [files]\n"
    )
    assert load_settings().model == "openai:gpt-4o"
    monkeypatch.setenv("GROVE_MODEL", "anthropic:claude-x")
    monkeypatch.setenv("GROVE_RETRY__ATTEMPTS", "7")
    monkeypatch.setenv("GROVE_TOOLSETS", "files,todo")
    s = load_settings()
    assert (s.model, s.retry.attempts, s.toolsets) == ("anthropic:claude-x", 7, ["files", "todo"])


def test_broken_yaml_is_a_clear_error(grove_home: Path) -> None:
    grove_home.mkdir()
    (grove_home / "config.yaml").write_text("model: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_settings()


def test_unknown_key_is_refused(grove_home: Path) -> None:
    grove_home.mkdir()
    (grove_home / "config.yaml").write_text("modle: local\n")
    with pytest.raises(ConfigError, match="modle"):
        load_settings()


def test_set_writes_validated_values(grove_home: Path) -> None:
    set_config_value("model", "openai:gpt-4o-mini")
    set_config_value("retry.attempts", "3")
    set_config_value("providers.vllm.base_url", "http://127.0.0.1:8000/v1")
    s = load_settings()
    assert s.model == "openai:gpt-4o-mini" and s.retry.attempts == 3
    assert s.providers["vllm"].base_url == "http://127.0.0.1:8000/v1"


def test_set_refuses_invalid_values_and_keeps_the_file(grove_home: Path) -> None:
    set_config_value("max_iterations", "5")
    before = (grove_home / "config.yaml").read_bytes()
    with pytest.raises(ConfigError, match="max_iterations"):
        set_config_value("max_iterations", "zero")
    assert (grove_home / "config.yaml").read_bytes() == before


def test_set_refuses_secrets() -> None:
    with pytest.raises(ConfigError, match="never writes keys"):
        set_config_value("openai_api_key", "sk-secret")


def test_config_show_masks_keys_as_everything_else_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from grove.cli.config_cmd import app

    monkeypatch.setenv("OPENAI_API_KEY", "sk-abcdefghijklmnopqrstuvwx")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-short")  # under 20 characters: nothing shown
    out = CliRunner().invoke(app, ["show"]).output
    assert "OPENAI_API_KEY: sk-a…uvwx" in out and "ANTHROPIC_API_KEY: ***" in out
    assert "abcdefghijklmnop" not in out and "short" not in out


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("local", ModelSpec("local", "")),
        ("local:/m/x.gguf", ModelSpec("local", "/m/x.gguf")),
        ("openai:gpt-4o-mini", ModelSpec("openai", "gpt-4o-mini")),
        ("anthropic:claude-sonnet-4-5", ModelSpec("anthropic", "claude-sonnet-4-5")),
        ("openrouter:meta/llama-3", ModelSpec("openrouter", "meta/llama-3", "https://openrouter.ai/api/v1")),
        (
            "openai-compat:qwen@http://127.0.0.1:8000/v1",
            ModelSpec("openai-compat", "qwen", "http://127.0.0.1:8000/v1"),
        ),
        ("script:demo.yaml", ModelSpec("script", "demo.yaml")),
    ],
)
def test_model_specs_parse_and_print_back(text: str, spec: ModelSpec) -> None:
    assert parse_spec(text) == spec
    assert str(spec) == text


@pytest.mark.parametrize(
    "bad", ["gpt-4o", "foo:bar", "openai:", "openai-compat:qwen", "openai-compat:q@ftp://x"]
)
def test_bad_specs_say_what_is_accepted(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"openai|model spec"):
        parse_spec(bad)


def test_env_names_nest_ignore_case_and_leave_other_grove_variables_alone(
    grove_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grove_home.mkdir()
    (grove_home / "config.yaml").write_text("retry:\n  base_delay: 0.5\n")
    monkeypatch.setenv("grove_retry__attempts", "3")
    monkeypatch.setenv("GROVE_PROVIDERS__VLLM__BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("GROVE_SECURITY__ALLOW_TERMINAL", "true")
    monkeypatch.setenv("GROVE_API_KEY", "sk-not-a-setting")
    s = load_settings()
    assert (s.retry.attempts, s.retry.base_delay) == (3, 0.5)  # the section is merged, not replaced
    assert s.providers["vllm"].base_url == "http://127.0.0.1:8000/v1"
    assert s.security.allow_terminal is True


def test_a_json_section_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROVE_RETRY", '{"attempts": 9, "max_delay": 5}')
    monkeypatch.setenv("GROVE_FALLBACK_MODELS", '["openai:a", "openai:b"]')
    s = load_settings()
    assert (s.retry.attempts, s.retry.max_delay) == (9, 5.0)
    assert s.fallback_models == ["openai:a", "openai:b"]


def test_bad_environment_values_name_the_variable_or_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROVE_RETRY", "{broken")
    with pytest.raises(ConfigError, match="GROVE_RETRY holds broken JSON"):
        load_settings()
    monkeypatch.delenv("GROVE_RETRY")
    monkeypatch.setenv("GROVE_MAX_ITERATIONS", "many")
    with pytest.raises(ConfigError, match=r"max_iterations.*GROVE_\* variables"):
        load_settings()


def test_explicit_overrides_win_and_none_means_not_given(
    grove_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grove_home.mkdir()
    (grove_home / "config.yaml").write_text("model: openai:gpt-4o\nmax_iterations: 9\n")
    monkeypatch.setenv("GROVE_MAX_ITERATIONS", "12")
    s = load_settings(model=None, max_iterations=3)
    assert (s.model, s.max_iterations) == ("openai:gpt-4o", 3)


def _pydantic_loaded_by_load_settings(home: Path) -> bool:
    code = "import sys; from grove.config import load_settings; load_settings(); print('pydantic' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROVE_")}
    run = subprocess.run(
        [sys.executable, "-c", code], env={**env, "GROVE_HOME": str(home)}, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip() == "True"


def test_checked_input_is_cached_so_later_starts_skip_pydantic(grove_home: Path) -> None:
    assert not _pydantic_loaded_by_load_settings(grove_home)  # defaults need no check
    set_config_value("retry.attempts", "3")
    assert _pydantic_loaded_by_load_settings(grove_home)  # new input: checked once...
    assert not _pydantic_loaded_by_load_settings(grove_home)  # ...then read from the cache
    assert load_settings().retry.attempts == 3


def test_the_cache_answers_only_for_the_same_input(grove_home: Path) -> None:
    set_config_value("max_iterations", "7")
    assert load_settings().max_iterations == 7
    cache = grove_home / "cache" / "settings.json"
    data = json.loads(cache.read_text())
    data["settings"]["max_iterations"] = 8  # what a hit returns
    cache.write_text(json.dumps(data))
    assert load_settings().max_iterations == 8
    set_config_value("max_iterations", "9")  # new input, new key: checked again
    assert load_settings().max_iterations == 9
    cache.write_text("{broken")
    assert load_settings().max_iterations == 9


def test_invalid_input_is_never_cached(grove_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROVE_MAX_ITERATIONS", "0")
    for _ in range(2):
        with pytest.raises(ConfigError, match="max_iterations"):
            load_settings()
