"""`grove config get | unset` and typo suggestions at any depth: in `set`, and in a config.yaml grove loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.config import (
    ConfigError,
    get_config_value,
    load_settings,
    set_config_value,
    unset_config_value,
)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("modle", "model"),
        ("compression.treshold", "compression.threshold"),
        ("retry.attemps", "retry.attempts"),
    ],
)
def test_a_mistyped_key_names_the_one_meant_at_its_depth(typo: str, meant: str) -> None:
    with pytest.raises(ConfigError, match=rf"did you mean '{meant}'"):
        set_config_value(typo, "1")


def test_a_mistyped_key_in_config_yaml_names_the_one_meant(grove_home: Path) -> None:
    grove_home.mkdir(parents=True, exist_ok=True)
    (grove_home / "config.yaml").write_text(
        "compression:\n  treshold: 0.5\nproviders:\n  vllm:\n    base_ur: x\n"
    )
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "did you mean 'compression.threshold'" in str(err.value)
    assert "did you mean 'providers.vllm.base_url'" in str(err.value)


def test_get_shows_the_effective_value_and_unset_brings_the_default_back(grove_home: Path) -> None:
    default = get_config_value(load_settings(), "retry.attempts")
    set_config_value("retry.attempts", str(default + 3))
    set_config_value("model", "local")
    assert get_config_value(load_settings(), "retry.attempts") == default + 3
    unset_config_value("retry.attempts")
    assert get_config_value(load_settings(), "retry.attempts") == default
    assert (grove_home / "config.yaml").read_text().strip() == "model: local"  # the emptied section went too
    with pytest.raises(ConfigError, match="nothing to unset"):
        unset_config_value("retry.attempts")
    with pytest.raises(ConfigError, match="did you mean 'retry'"):
        get_config_value(load_settings(), "retyr.attempts")
