"""Settings: $GROVE_HOME/config.yaml, overridden by GROVE_* environment variables. One object, passed down.

API keys are never stored here: they come from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY,
OPENROUTER_API_KEY, GROVE_API_KEY, or the variable a provider names in `key_env`). The sources are merged here,
in ~40 lines, rather than by pydantic-settings, whose import alone (~0.1 s) was a fifth of the start-up budget.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from grove.errors import GroveError
from grove.learning.config import LearningConfig
from grove.memory.config import MemoryConfig

KEY_ENVS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "openai-compat": "GROVE_API_KEY",
}
# Which model to use when none is configured: the first provider whose key is present, else the local model.
AUTO_MODELS = [
    ("ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-6"),
    ("OPENAI_API_KEY", "openai:gpt-5.4-mini"),
    ("OPENROUTER_API_KEY", "openrouter:openai/gpt-5.4-mini"),
]
SECRET_WORDS = ("key", "token", "secret", "password")


def grove_home() -> Path:
    return Path(os.environ.get("GROVE_HOME") or "~/.grove").expanduser()


class ProviderConfig(BaseModel):
    base_url: str | None = None
    key_env: str | None = Field(None, description="name of the environment variable holding the API key")
    context_window: int | None = None
    transport: Literal["auto", "sdk", "http"] = Field(
        "auto",
        description="OpenAI-compatible providers: the openai SDK, or the stdlib transport (no 1 s import); "
        "auto = the SDK in long-lived sessions (chat, goal, evolve), stdlib for one-shot runs",
    )


class RetryConfig(BaseModel):
    attempts: int = Field(4, ge=1, le=20, description="tries per model, the first included")
    base_delay: float = Field(1.0, ge=0)
    max_delay: float = Field(60.0, ge=0)


class LocalModelConfig(BaseModel):
    n_ctx: int = Field(8192, ge=512)
    n_threads: int | None = None
    max_tokens: int = Field(512, ge=1)
    prompt_cache: bool = Field(
        True, description="keep the system prompt's KV cache on disk, so the next run skips re-reading it"
    )


class CompressionConfig(BaseModel):
    enabled: bool = Field(
        True, description="compress automatically (an overflow error or /compress always can)"
    )
    threshold: float = Field(
        0.5, gt=0, lt=1, description="share of the context window that triggers compression"
    )
    safety: float = Field(0.85, gt=0, le=1, description="estimated share that compresses before a call")
    tool_result_chars: int = Field(
        200, ge=0, description="older tool results longer than this become placeholders"
    )
    summary_model: str | None = Field(
        None, description="model spec for summaries; empty = the session's model"
    )


class GoalsConfig(BaseModel):
    judge_model: str | None = Field(
        None, description="model spec of the goal judge; empty = the session's model"
    )
    max_turns: int = Field(20, ge=1)


class SkillsConfig(BaseModel):
    external_dirs: list[str] = Field(
        default_factory=list, description="read-only skill folders of other agents, e.g. ~/.claude/skills"
    )


class SecurityConfig(BaseModel):
    allow_terminal: bool = Field(False, description="let the model run shell commands (in the sandbox)")
    approval_mode: Literal["manual", "smart", "off"] = Field(
        "manual",
        description="dangerous commands: ask the user, let a model decide, or allow (hard blocklist stays)",
    )
    approval_timeout: float = Field(300.0, gt=0, description="seconds to wait for an answer; none = deny")
    sandbox: Literal["auto", "bwrap", "landlock", "rlimit"] = "auto"
    network: bool = Field(False, description="let sandboxed commands reach the network")


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    home: Path = Field(default_factory=grove_home)
    model: str | None = Field(None, description="model spec; empty = first configured provider, else local")
    fallback_models: list[str] = Field(default_factory=list)
    toolsets: list[str] = Field(default_factory=lambda: ["files", "todo", "skills", "memory", "sessions"])
    max_iterations: int = Field(50, ge=1)
    timeout: float = Field(120.0, gt=0, description="seconds per model request")
    max_tokens: int | None = None
    temperature: float | None = None
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    retry: RetryConfig = Field(default_factory=RetryConfig)
    local: LocalModelConfig = Field(default_factory=LocalModelConfig)
    security: SecurityConfig = Field(default_factory=SecurityConfig)
    skills: SkillsConfig = Field(default_factory=SkillsConfig)
    compression: CompressionConfig = Field(default_factory=CompressionConfig)
    goals: GoalsConfig = Field(default_factory=GoalsConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    learning: LearningConfig = Field(default_factory=LearningConfig)

    @field_validator("toolsets", "fallback_models", mode="before")
    @classmethod
    def _split_commas(cls, v: Any) -> Any:
        if isinstance(v, str):  # GROVE_TOOLSETS=files,todo or a JSON list
            if v.strip().startswith("["):
                return json.loads(v)
            return [s.strip() for s in v.split(",") if s.strip()]
        return v

    @property
    def config_path(self) -> Path:
        return self.home / "config.yaml"

    @property
    def db_path(self) -> Path:
        return self.home / "state.db"

    def resolved_model(self) -> str:
        if self.model:
            return self.model
        for env, spec in AUTO_MODELS:
            if os.environ.get(env):
                return spec
        return "local"


class ConfigError(GroveError):
    """Bad configuration, with a message saying what is wrong and how to fix it."""


ENV_PREFIX = "GROVE_"
ENV_NESTING = "__"


def env_values(environ: Mapping[str, str]) -> dict[str, Any]:
    """GROVE_* variables as nested settings: GROVE_RETRY__ATTEMPTS=7 -> {"retry": {"attempts": "7"}} (pydantic
    converts the strings). Names are case-insensitive; variables naming no setting (GROVE_API_KEY) are ignored;
    a JSON object or list may stand for a whole section (GROVE_RETRY='{"attempts": 7}')."""
    out: dict[str, Any] = {}
    for name, value in environ.items():
        if not name.upper().startswith(ENV_PREFIX):
            continue
        path = name[len(ENV_PREFIX) :].lower().split(ENV_NESTING)
        if path[0] not in Settings.model_fields or not all(path):
            continue
        if value.lstrip().startswith(("{", "[")):
            try:
                value = json.loads(value)
            except ValueError as e:
                raise ConfigError(f"{name} holds broken JSON ({e}); fix or unset it") from e
        node = out
        for part in path[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(f"{name} conflicts with another GROVE_ variable for '{part}'; unset one")
            node = child
        node[path[-1]] = value
    return out


def merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`, sections merged key by key (env GROVE_RETRY__ATTEMPTS keeps retry.base_delay)."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def read_config_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML ({e}); fix it or remove it") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of settings, e.g. 'model: local'")
    return data


def load_settings(**overrides: Any) -> Settings:
    """config.yaml, then GROVE_* variables, then `overrides` (None = not given), each over the one before."""
    env = env_values(os.environ)
    given = {k: v for k, v in overrides.items() if v is not None}
    data = merged(merged(read_config_file(grove_home() / "config.yaml"), env), given)
    try:
        return Settings.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())
        where = " or your GROVE_* variables" if env else ""
        raise ConfigError(f"invalid settings ({problems}); see `grove config show`{where}") from e


def set_config_value(key: str, raw_value: str) -> Path:
    """Set a dotted KEY in config.yaml (validated, written atomically). Secrets are refused."""
    import yaml

    from grove.store.files import atomic_write_text

    if (
        any(w in key.lower() for w in SECRET_WORDS)
        and key.lower() != "providers"
        and not key.endswith("key_env")
    ):
        raise ConfigError(
            f"'{key}' looks like a secret; grove never writes keys to disk. Export it in your shell instead "
            "(e.g. export OPENAI_API_KEY=...), or set providers.<name>.key_env to the variable's name."
        )
    path = grove_home() / "config.yaml"
    data = read_config_file(path)
    value = yaml.safe_load(raw_value) if raw_value.strip() else None
    node = data
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"cannot set '{key}': '{part}' is not a section")
    node[parts[-1]] = value
    try:
        Settings.model_validate({**data, "home": grove_home()})
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())
        raise ConfigError(f"not set: {problems}") from e
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False))
    return path


def mask(value: str) -> str:
    if len(value) <= 12:
        return "*" * len(value)
    return f"{value[:4]}…{value[-4:]}"
