"""The model providers, one row each: spec syntax, key variable, default URL and model, help, factory.

Data only, below config in the layers (config reads the key variables and the auto-detected models from it);
factories are "module:attribute" strings that grove.llm.spec imports only when a spec names the provider.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    name: str  # the spec's prefix: "openai" in openai:gpt-5.4-mini
    api: (
        str  # the wire format (a profile key in grove.llm.profiles): "openai", "anthropic", "local", "script"
    )
    factory: str  # "module:attr[.attr]", called as factory(spec, provider, settings, long_lived=...) -> Model
    syntax: str  # how a spec is written, for help texts: "openai:<model>"
    help: str  # one line: what it is
    key_env: str | None = (
        None  # the environment variable holding its API key (providers.NAME.key_env overrides)
    )
    key_required: bool = False  # refuse to start without a key, unless providers.NAME.base_url names a proxy
    base_url: str | None = None  # None: the format's own default (or the SDK's *_BASE_URL variable)
    default_model: str | None = (
        None  # with its key set and no model configured, grove uses this (table order)
    )
    url_in_spec: bool = False  # the spec is <model>@<base_url>
    bare: bool = False  # the name alone is a spec (`local`)
    bare_model: str = ""  # the model the name alone means, for its profile (grove.llm.profiles)
    remote: bool = True  # calls leave the machine (priced, needs a network)


OPENAI = "grove.llm.openai_compat:OpenAICompatModel.from_spec"
# Table order is the auto-detection order: with no model configured, the first provider whose key is set wins.
PROVIDERS: tuple[Provider, ...] = (
    Provider(
        "local",
        api="local",
        factory="grove.llm.local:LocalModel.from_spec",
        syntax="local[:/path/model.gguf]",
        help="the embedded SmolLM2-135M-Instruct, or any GGUF file, through llama.cpp (offline)",
        bare=True,
        bare_model="SmolLM2-135M-Instruct",
        remote=False,
    ),
    Provider(
        "anthropic",
        api="anthropic",
        factory="grove.llm.anthropic_model:AnthropicModel.from_spec",
        syntax="anthropic:<model>",
        help="Anthropic's Messages API",
        key_env="ANTHROPIC_API_KEY",
        key_required=True,
        default_model="claude-sonnet-4-6",
    ),
    Provider(
        "openai",
        api="openai",
        factory=OPENAI,
        syntax="openai:<model>",
        help="OpenAI",
        key_env="OPENAI_API_KEY",
        key_required=True,
        default_model="gpt-5.4-mini",
    ),
    Provider(
        "openrouter",
        api="openai",
        factory=OPENAI,
        syntax="openrouter:<vendor/model>",
        help="OpenRouter",
        key_env="OPENROUTER_API_KEY",
        key_required=True,
        base_url="https://openrouter.ai/api/v1",
        default_model="openai/gpt-5.4-mini",
    ),
    Provider(
        "openai-compat",
        api="openai",
        factory=OPENAI,
        syntax="openai-compat:<model>@<base_url>",
        help="any OpenAI-compatible server: vLLM, Ollama, llama.cpp server, LM Studio",
        key_env="GROVE_API_KEY",
        url_in_spec=True,
    ),
    Provider(
        "script",
        api="script",
        factory="grove.llm.spec:script_model",
        syntax="script:<file.yaml>",
        help="a deterministic scripted model for demos and tests",
        remote=False,
    ),
)
FALLBACK_KEY_ENV = "GROVE_API_KEY"  # the key variable of a provider whose row names none


def provider_named(name: str) -> Provider | None:
    return next((p for p in PROVIDERS if p.name == name), None)


def spec_syntaxes() -> str:
    """ "local[:/path/model.gguf], anthropic:<model>, ...": every provider's spec, for one-line help texts."""
    return ", ".join(p.syntax for p in PROVIDERS)


def describe() -> str:
    """One line per provider, its spec syntax and what it is, for error messages that say what to write."""
    width = max(len(p.syntax) for p in PROVIDERS)
    return "\n".join(f"  {p.syntax:<{width}}  {p.help}" for p in PROVIDERS)


def key_envs() -> dict[str, str]:
    """Provider name -> the variable holding its key."""
    return {p.name: p.key_env for p in PROVIDERS if p.key_env}


def auto_models() -> list[tuple[str, str]]:
    """(key variable, spec) in auto-detection order."""
    return [(p.key_env, f"{p.name}:{p.default_model}") for p in PROVIDERS if p.key_env and p.default_model]
