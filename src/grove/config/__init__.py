"""Settings: $GROVE_HOME/config.yaml, overridden by GROVE_* environment variables. One object, passed down.

API keys are never stored here: they come from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY,
OPENROUTER_API_KEY, GROVE_API_KEY, or the variable a provider names in `key_env`). The sections are plain
dataclasses whose constraints pydantic checks when there is input to check (see `validate`). Checking (YAML,
schema build) costs 20-100 ms, a sizeable share of `grove run`'s 0.5 s start-up budget, so checked input is cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from grove.config.backends import BackendsConfig
from grove.config.checkpoints import CheckpointsConfig
from grove.config.delegation import DelegationConfig
from grove.config.gateway import GatewayPlatformConfig
from grove.config.learning import LearningConfig
from grove.config.mcp import McpConfig
from grove.config.memory import MemoryConfig
from grove.config.spend import SpendConfig
from grove.config.web import WebConfig
from grove.dataclass_io import STRICT_KEYS, InvalidData, from_dict, to_jsonable, validate_as
from grove.errors import GroveError
from grove.providers_table import auto_models, key_envs

if TYPE_CHECKING:
    from pydantic import Field  # read from the annotations by `validate`, which imports it

KEY_ENVS = key_envs()  # provider -> its key variable, from grove.providers_table
# Which model to use when none is configured: the first provider whose key is present, else the local model.
AUTO_MODELS = auto_models()
SECRET_WORDS = ("key", "token", "secret", "password")
LIST_SETTINGS = (
    "toolsets",
    "fallback_models",
)  # a string is a comma-separated list: GROVE_TOOLSETS=files,todo


def grove_home() -> Path:
    return Path(os.environ.get("GROVE_HOME") or "~/.grove").expanduser()


@dataclass
class ProviderConfig:
    __pydantic_config__ = STRICT_KEYS

    base_url: Annotated[str | None, Field(description="the provider's API address; empty = its default")] = (
        None
    )
    key_env: Annotated[
        str | None, Field(description="name of the environment variable holding the API key")
    ] = None
    context_window: Annotated[
        int | None, Field(description="tokens the model reads at most; empty = what grove knows of the model")
    ] = None
    transport: Annotated[
        Literal["auto", "sdk", "http"],
        Field(
            description="OpenAI-compatible and Anthropic providers: the provider's SDK, or the stdlib transport "
            "(no 1-2 s import); auto = the SDK in long-lived sessions (chat, goal, evolve), stdlib for one-shot runs"
        ),
    ] = "auto"


@dataclass
class RetryConfig:
    __pydantic_config__ = STRICT_KEYS

    attempts: Annotated[int, Field(ge=1, le=20, description="tries per model, the first included")] = 4
    base_delay: Annotated[
        float, Field(ge=0, description="seconds; the n-th retry waits a random time up to base_delay * 2^n")
    ] = 1.0
    max_delay: Annotated[
        float, Field(ge=0, description="seconds a retry waits at most (a server's Retry-After too)")
    ] = 60.0


@dataclass
class LocalModelConfig:
    __pydantic_config__ = STRICT_KEYS

    n_ctx: Annotated[int, Field(ge=512, description="context window of a local model, in tokens")] = 8192
    n_threads: Annotated[
        int | None, Field(description="CPU threads of a local model; empty = one per idle core, measured")
    ] = None
    max_tokens: Annotated[int, Field(ge=1, description="most tokens a local model writes per reply")] = 512
    prompt_cache: Annotated[
        bool,
        Field(description="keep the system prompt's KV cache on disk, so the next run skips re-reading it"),
    ] = True


@dataclass
class CompressionConfig:
    __pydantic_config__ = STRICT_KEYS

    enabled: Annotated[
        bool, Field(description="compress automatically (an overflow error or /compress always can)")
    ] = True
    threshold: Annotated[
        float, Field(gt=0, lt=1, description="share of the context window that triggers compression")
    ] = 0.5
    safety: Annotated[
        float, Field(gt=0, le=1, description="estimated share that compresses before a call")
    ] = 0.85
    tool_result_chars: Annotated[
        int, Field(ge=0, description="older tool results longer than this become placeholders")
    ] = 200
    summary_model: Annotated[
        str | None, Field(description="model spec for summaries; empty = the session's model")
    ] = None


@dataclass
class GoalsConfig:
    __pydantic_config__ = STRICT_KEYS

    judge_model: Annotated[
        str | None, Field(description="model spec of the goal judge; empty = the session's model")
    ] = None
    max_turns: Annotated[int, Field(ge=1)] = 20


@dataclass
class SkillsConfig:
    __pydantic_config__ = STRICT_KEYS

    external_dirs: Annotated[
        list[str], Field(description="read-only skill folders of other agents, e.g. ~/.claude/skills")
    ] = field(default_factory=list)
    max_depth: Annotated[
        int,
        Field(ge=1, le=32, description="how many folders deep skill discovery and import look for SKILL.md"),
    ] = 6
    max_skills: Annotated[
        int | None,
        Field(
            ge=1, description="most skills taken from one source (empty = no limit; a limit hit is reported)"
        ),
    ] = None
    max_files: Annotated[
        int,
        Field(ge=1, description="most files one imported skill may hold (more: reported as over a limit)"),
    ] = 200
    max_file_bytes: Annotated[
        int, Field(ge=1, description="most bytes one file of an imported skill may hold (more: over a limit)")
    ] = 1 << 20
    max_skill_bytes: Annotated[
        int,
        Field(ge=1, description="most bytes all files of one imported skill may hold (more: over a limit)"),
    ] = 16 << 20


@dataclass
class SecurityConfig:
    __pydantic_config__ = STRICT_KEYS

    allow_terminal: Annotated[
        bool, Field(description="let the model run shell commands (in the sandbox)")
    ] = False
    approval_mode: Annotated[
        Literal["manual", "smart", "off"],
        Field(
            description="dangerous commands: ask the user, let a model decide, or allow (hard blocklist stays)"
        ),
    ] = "manual"
    approval_model: Annotated[
        str | None,
        Field(description="model spec of the smart-approval judge; empty = the session's model"),
    ] = None
    approval_timeout: Annotated[
        float, Field(gt=0, description="seconds to wait for an answer; none = deny")
    ] = 300.0
    sandbox: Annotated[
        Literal["auto", "bwrap", "landlock", "rlimit"],
        Field(description="sandbox backend; auto = the best this machine has (grove doctor says which)"),
    ] = "auto"
    network: Annotated[bool, Field(description="let sandboxed commands reach the network")] = False
    extra_read_roots: Annotated[
        list[str], Field(description="folders file tools may read without asking, besides the workspace")
    ] = field(default_factory=list)
    extra_write_roots: Annotated[
        list[str], Field(description="folders file tools may read and write without asking")
    ] = field(default_factory=list)
    allow_unisolated: Annotated[
        bool,
        Field(description="let unattended runs execute commands and code with NO sandbox isolation"),
    ] = False


def _default_toolsets() -> list[str]:
    return ["files", "todo", "skills", "memory", "sessions"]


@dataclass
class Settings:
    __pydantic_config__ = STRICT_KEYS

    home: Path = field(default_factory=grove_home, metadata={"type": Path})
    model: Annotated[
        str | None, Field(description="model spec; empty = first configured provider, else local")
    ] = None
    fallback_models: Annotated[
        list[str], Field(description="model specs tried in order when the model keeps failing")
    ] = field(default_factory=list)
    toolsets: Annotated[
        list[str], Field(description="toolsets of a session (-t); a comma-separated string in GROVE_TOOLSETS")
    ] = field(default_factory=_default_toolsets)
    max_iterations: Annotated[int, Field(ge=1, description="model calls per turn at most")] = 50
    timeout: Annotated[float, Field(gt=0, description="seconds per model request")] = 120.0
    max_tokens: Annotated[
        int | None, Field(description="most tokens per reply; empty = the provider's default")
    ] = None
    temperature: Annotated[
        float | None,
        Field(description="sampling temperature; empty = the provider's default (never sent to Anthropic)"),
    ] = None
    providers: dict[str, ProviderConfig] = field(default_factory=dict, metadata={"values": ProviderConfig})
    retry: RetryConfig = field(default_factory=RetryConfig)
    local: LocalModelConfig = field(default_factory=LocalModelConfig)
    security: SecurityConfig = field(default_factory=SecurityConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    compression: CompressionConfig = field(default_factory=CompressionConfig)
    goals: GoalsConfig = field(default_factory=GoalsConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    learning: LearningConfig = field(default_factory=LearningConfig)
    delegation: DelegationConfig = field(default_factory=DelegationConfig)
    gateway: dict[str, GatewayPlatformConfig] = field(
        default_factory=dict, metadata={"values": GatewayPlatformConfig}
    )
    mcp: McpConfig = field(default_factory=McpConfig)
    web: WebConfig = field(default_factory=WebConfig)
    checkpoints: CheckpointsConfig = field(default_factory=CheckpointsConfig)
    spend: SpendConfig = field(default_factory=SpendConfig)
    backends: BackendsConfig = field(default_factory=BackendsConfig)

    @property
    def config_path(self) -> Path:
        return self.home / "config.yaml"

    @property
    def db_path(self) -> Path:
        return self.home / "state.db"

    def resolved_model(self) -> str:
        if self.model:
            return self.model
        for env, spec in auto_models():
            if os.environ.get(env):
                return spec
        return "local"


class ConfigError(GroveError):
    """Bad configuration, with a message saying what is wrong and how to fix it."""


ENV_PREFIX = "GROVE_"
ENV_NESTING = "__"
SETTING_NAMES = {f.name for f in fields(Settings)} - {"home"}


def env_values(environ: Mapping[str, str]) -> dict[str, Any]:
    """GROVE_* variables as nested settings: GROVE_RETRY__ATTEMPTS=7 -> {"retry": {"attempts": "7"}} (pydantic
    converts the strings). Names are case-insensitive; variables naming no setting (GROVE_API_KEY) are ignored;
    a JSON object or list may stand for a whole section (GROVE_RETRY='{"attempts": 7}')."""
    out: dict[str, Any] = {}
    for name, value in environ.items():
        if not name.upper().startswith(ENV_PREFIX):
            continue
        path = name[len(ENV_PREFIX) :].lower().split(ENV_NESTING)
        if path[0] not in SETTING_NAMES or not all(path):
            continue  # GROVE_HOME is read by grove_home(); GROVE_API_KEY is a key, not a setting
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
    return parse_config_text(path.read_text(encoding="utf-8"), path) if path.is_file() else {}


def parse_config_text(text: str, path: Path) -> dict[str, Any]:
    """config.yaml's mapping; a broken file is a clear error, never a silent default."""
    if not text.strip():
        return {}
    import yaml

    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML ({e}); fix it or remove it") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of settings, e.g. 'model: local'")
    return data


def load_settings(**overrides: Any) -> Settings:
    """config.yaml, then GROVE_* variables, then `overrides` (None = not given), each over the one before.

    Input is checked by pydantic once and the result kept in $GROVE_HOME/cache/settings.json, keyed by the input
    and by the code defining the settings; with no input at all the defaults need no check."""
    home = grove_home()
    env = env_values(os.environ)
    given = {k: v for k, v in overrides.items() if v is not None}
    path = home / "config.yaml"
    if not env and not given and not path.is_file():
        return Settings()
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    key = hashlib.sha256(
        json.dumps([_code_version(), str(home), text, env, given], sort_keys=True, default=str).encode()
    ).hexdigest()
    cache = home / "cache" / "settings.json"
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if cached["key"] == key:
            return from_dict(Settings, cached["settings"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no cache, or an unreadable one: check the input
    data = merged(merged(parse_config_text(text, path), env), given)
    try:
        settings = validate(data)
    except InvalidData as e:
        where = " or your GROVE_* variables" if env else ""
        raise ConfigError(f"invalid settings ({e}); see `grove config show`{where}") from e
    try:
        from grove.atomic_files import atomic_write_text

        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(cache, json.dumps({"key": key, "settings": to_jsonable(settings)}))
    except OSError:
        pass  # a read-only home still works: it checks every time
    return settings


def validate(data: dict[str, Any]) -> Settings:
    """Raw settings (YAML values, GROVE_* strings) checked and converted; InvalidData lists what is wrong."""
    lists = {k: _split_commas(v) for k, v in data.items() if k in LIST_SETTINGS}
    return validate_as(Settings, {**data, **lists})


def _split_commas(value: Any) -> Any:
    if isinstance(value, str):  # GROVE_TOOLSETS=files,todo (a JSON list arrives decoded)
        return [s.strip() for s in value.split(",") if s.strip()]
    return value


def _code_version() -> str:
    """A hash of the modules that define the settings: the cache is void when their fields or checks change."""
    names = (
        __name__,
        LearningConfig.__module__,
        MemoryConfig.__module__,
        GatewayPlatformConfig.__module__,
        McpConfig.__module__,
        "grove.dataclass_io",
    )
    digest = hashlib.sha256()
    for name in names:
        digest.update(Path(sys.modules[name].__file__ or "").read_bytes())
    return digest.hexdigest()[:16]


def _unknown_key(key: str) -> ConfigError | None:
    """An error naming the nearest known key when dotted `key` names no setting (a mapping's key is any name)."""
    import difflib

    from grove.dataclass_io import known_keys

    parts = key.split(".")
    for depth in range(len(parts)):
        known = known_keys(Settings, parts[:depth])
        if not known:
            return None  # a mapping's entry or a plain value below: pydantic judges the rest
        if parts[depth] not in known:
            close = difflib.get_close_matches(parts[depth], known, n=1)
            hint = f"did you mean '{'.'.join([*parts[:depth], close[0]])}'? " if close else ""
            return ConfigError(f"unknown setting '{key}'; {hint}`grove config show` lists them")
    return None


def get_config_value(settings: Settings, key: str) -> Any:
    """The effective value of dotted `key` (config.yaml, GROVE_* variables and defaults together)."""
    from grove.dataclass_io import to_jsonable

    if (unknown := _unknown_key(key)) is not None:
        raise unknown
    node: Any = to_jsonable(settings)
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(f"'{key}' is not set (no value there); `grove config show` lists what is")
        node = node[part]
    return node


def unset_config_value(key: str) -> Path:
    """Remove dotted `key` from config.yaml (its default applies again); validated, written atomically."""
    import yaml

    from grove.atomic_files import atomic_write_text

    if (unknown := _unknown_key(key)) is not None:
        raise unknown
    path = grove_home() / "config.yaml"
    data = read_config_file(path)
    parts = key.split(".")
    node: Any = data
    for part in parts[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or parts[-1] not in node:
        raise ConfigError(
            f"'{key}' is not in {path}; nothing to unset (`grove config show` shows where each comes from)"
        )
    del node[parts[-1]]
    for depth in range(len(parts) - 1, 0, -1):  # a section left empty goes too
        parent: Any = data
        for part in parts[: depth - 1]:
            parent = parent[part]
        if parent[parts[depth - 1]] == {}:
            del parent[parts[depth - 1]]
    try:
        validate({**data, "home": grove_home()})
    except InvalidData as e:
        raise ConfigError(f"not unset: {e}") from e
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False))
    return path


def set_config_value(key: str, raw_value: str) -> Path:
    """Set a dotted KEY in config.yaml (validated, written atomically). Secrets are refused."""
    import yaml

    from grove.atomic_files import atomic_write_text

    parts = key.split(".")
    leaf = parts[-1].lower()
    # a name that *is* a secret (api_key, token, openai_api_key), not one that merely contains the letters
    secret = any(leaf == w or leaf.endswith(f"_{w}") for w in SECRET_WORDS) and not leaf.endswith("key_env")
    if not secret and (unknown := _unknown_key(key)) is not None:
        raise unknown
    if secret:
        raise ConfigError(
            f"'{key}' looks like a secret; grove never writes keys to disk. Export it in your shell instead "
            "(e.g. export OPENAI_API_KEY=...), or set providers.<name>.key_env to the variable's name."
        )
    path = grove_home() / "config.yaml"
    data = read_config_file(path)
    try:
        value = yaml.safe_load(raw_value) if raw_value.strip() else None
    except yaml.YAMLError as e:
        raise ConfigError(f"'{raw_value}' is not a YAML value ({e}); quote it or fix it") from e
    node = data
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"cannot set '{key}': '{part}' is not a section")
    node[parts[-1]] = value
    try:
        validate({**data, "home": grove_home()})
    except InvalidData as e:
        raise ConfigError(f"not set: {e}") from e
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False))
    return path
