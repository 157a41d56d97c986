"""Model spec strings (`local`, `openai:gpt-4o-mini`, `openai-compat:qwen@http://host/v1`, ...) and the factory.

Providers are imported only when a spec needs them: here the openai SDK costs ~1 s of start-up, anthropic ~2 s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grove.config import KEY_ENVS, ConfigError, ProviderConfig

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.types import Model

PROVIDERS = ("local", "openai", "anthropic", "openrouter", "openai-compat", "script")
BASE_URLS = {"openrouter": "https://openrouter.ai/api/v1"}
HELP = (
    "model specs: local, local:/path/model.gguf, openai:<model>, anthropic:<model>, openrouter:<model>, "
    "openai-compat:<model>@<base_url>, script:<file.yaml>"
)


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str  # model name, or a file path for local/script
    base_url: str | None = None

    def __str__(self) -> str:
        if self.provider == "local" and not self.model:
            return "local"
        at = f"@{self.base_url}" if self.provider == "openai-compat" and self.base_url else ""
        return f"{self.provider}:{self.model}{at}"


def parse_spec(spec: str) -> ModelSpec:
    spec = spec.strip()
    if spec == "local":
        return ModelSpec("local", "")
    provider, sep, rest = spec.partition(":")
    if not sep or provider not in PROVIDERS:
        raise ConfigError(f"unknown model spec '{spec}'; {HELP}")
    if not rest:
        raise ConfigError(f"model spec '{spec}' names no model; {HELP}")
    if provider == "openai-compat":
        model, at, base_url = rest.rpartition("@")
        if not at or not model or not base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"'{spec}': use openai-compat:<model>@<base_url>, e.g. openai-compat:qwen3@http://localhost:8000/v1"
            )
        return ModelSpec(provider, model, base_url)
    return ModelSpec(provider, rest, BASE_URLS.get(provider))


def api_key_for(provider: str, cfg: ProviderConfig) -> tuple[str | None, str]:
    """The key (or None) and the name of the variable it comes from, for messages that say what to set."""
    env = cfg.key_env or KEY_ENVS.get(provider, "GROVE_API_KEY")
    return os.environ.get(env) or None, env


def build_model(spec_text: str, settings: Settings, *, long_lived: bool = False) -> Model:
    """The model a spec names. `long_lived`: the process serves many calls (chat, serve), which picks the
    provider's SDK over the stdlib transport when its `transport` is "auto"."""
    spec = parse_spec(spec_text)
    cfg = settings.providers.get(spec.provider, ProviderConfig())
    if spec.provider == "script":
        from grove.llm.script import ScriptModel

        return ScriptModel.from_file(spec.model)
    if spec.provider == "local":
        from grove.llm.local import LocalModel

        return LocalModel(
            name=str(spec),
            path=spec.model or None,
            n_ctx=settings.local.n_ctx,
            n_threads=settings.local.n_threads,
            max_tokens=settings.local.max_tokens,
            prompt_cache_dir=settings.home / "cache" / "local-kv" if settings.local.prompt_cache else None,
        )
    key, key_env = api_key_for(spec.provider, cfg)
    if not key and (
        spec.provider in ("openai", "openrouter") or (spec.provider == "anthropic" and not cfg.base_url)
    ):
        raise ConfigError(f"{spec.provider} needs an API key: export {key_env}=... (grove never stores keys)")
    from grove.llm.http_transport import resolve_transport

    if spec.provider == "anthropic":
        from grove.llm.anthropic_model import AnthropicModel

        return AnthropicModel(
            name=str(spec),
            model=spec.model,
            api_key=key,
            key_env=key_env,
            base_url=cfg.base_url,
            context_window=cfg.context_window,
            transport=resolve_transport(cfg.transport, long_lived),
        )
    from grove.llm.openai_compat import OpenAICompatModel

    return OpenAICompatModel(
        name=str(spec),
        model=spec.model,
        base_url=cfg.base_url or spec.base_url,
        api_key=key,
        key_env=key_env,
        context_window=cfg.context_window,
        transport=resolve_transport(cfg.transport, long_lived),
    )
