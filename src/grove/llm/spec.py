"""Model spec strings (`local`, `openai:gpt-5.4-mini`, `openai-compat:qwen@http://host/v1`, ...) and the factory.

Everything about a provider comes from its row in grove.providers_table. Its module is imported only when a spec
names it: the SDKs are heavier still (openai ~1 s, anthropic ~2 s) and load only when their transport is used.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grove import providers_table
from grove.config import ConfigError, ProviderConfig
from grove.llm import plugin_providers

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.types import Model
    from grove.providers_table import Provider


def spec_help() -> str:
    from grove.llm.local_catalog import CATALOG

    local = ", ".join(f"local:{name}" for name in CATALOG)
    return f"model specs: {providers_table.spec_syntaxes()}; assembled local models: {local}"


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str  # model name, or a file path for local/script
    base_url: str | None = None

    def __str__(self) -> str:
        row = plugin_providers.provider_row(self.provider)
        if row is not None and row.bare and not self.model:
            return self.provider
        at = f"@{self.base_url}" if row is not None and row.url_in_spec and self.base_url else ""
        return f"{self.provider}:{self.model}{at}"


def provider_for(name: str) -> Provider:
    row = plugin_providers.provider_row(name)
    if row is None:
        raise ConfigError(f"unknown provider '{name}'; use one of:\n{plugin_providers.describe()}")
    return row


def parse_spec(spec: str) -> ModelSpec:
    spec = spec.strip()
    name, sep, rest = spec.partition(":")
    row = plugin_providers.provider_row(name)
    if row is None or (not sep and not row.bare):
        raise ConfigError(f"unknown model spec '{spec}'; use one of:\n{plugin_providers.describe()}")
    if not sep:
        return ModelSpec(name, "")
    if not rest:
        raise ConfigError(f"model spec '{spec}' names no model; {spec_help()}")
    if row.url_in_spec:
        model, at, base_url = rest.rpartition("@")
        if not at or not model or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"'{spec}': use {row.syntax}, e.g. {name}:qwen3@http://localhost:8000/v1")
        return ModelSpec(name, model, base_url)
    return ModelSpec(name, rest, row.base_url)


def provider_config(settings: Settings, name: str) -> ProviderConfig:
    return settings.providers.get(name, ProviderConfig())


def api_key_for(provider: str, cfg: ProviderConfig) -> tuple[str | None, str]:
    """The key (or None) and the name of the variable it comes from, for messages that say what to set."""
    row = plugin_providers.provider_row(provider)
    env = cfg.key_env or (row.key_env if row else None) or providers_table.FALLBACK_KEY_ENV
    return os.environ.get(env) or None, env


def build_model(spec_text: str, settings: Settings, *, long_lived: bool = False) -> Model:
    """The model a spec names. `long_lived`: the process serves many calls (chat, serve), which picks the
    provider's SDK over the stdlib transport when its `transport` is "auto"."""
    spec = parse_spec(spec_text)
    row = provider_for(spec.provider)
    cfg = provider_config(settings, row.name)
    if row.key_required and not cfg.base_url:  # a configured base URL may be a proxy that needs no key
        key, key_env = api_key_for(row.name, cfg)
        if not key:
            raise ConfigError(f"{row.name} needs an API key: export {key_env}=... (grove never stores keys)")
    model: Model = load_factory(row.factory)(spec, row, settings, long_lived=long_lived)
    return model


def load_factory(path: str) -> Any:
    """ "package.module:Class.method" -> the object, importing the module now (not before a spec needs it)."""
    module_name, _, attrs = path.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for attr in attrs.split("."):
            obj = getattr(obj, attr)
    except (ImportError, AttributeError) as e:
        raise ConfigError(
            f"provider factory '{path}' cannot be loaded ({e}); fix its providers_table row"
        ) from e
    return obj


def script_model(
    spec: ModelSpec, provider: Provider, settings: Settings, *, long_lived: bool = False
) -> Model:
    """The `script` provider's factory: a YAML file of scripted replies."""
    from grove.llm.script import ScriptModel

    return ScriptModel.from_file(spec.model)
