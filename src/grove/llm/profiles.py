"""Model quirks as data: which request fields a model takes, its context window, its defaults, and what the agent
around it must do for it (`ModelNeeds`).

Providers ask `profile_for(api, provider, model)` and the runtime asks `needs_for(spec)` instead of branching on
model names: this module is the only place that reads a model's name. Every rule whose API format, provider,
vendor and model prefix match applies, in table order, so general rules come first and specific ones after.
Prefixes, not regular expressions: compiling a dozen patterns would cost a one-shot run ~0.5 ms.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal, NamedTuple

# Not offered to a small model from the toolsets: a 1.5B model takes skill_manage for write_file or patch ("create
# .gitignore" became a skill), `memory` for a file ("set workers to 9" became a memory entry) and `todo` for TODO
# comments. Library and memory are still kept up to date by the reviewer, which has its own tools, and memory
# still shows in the prompt.
SMALL_MODEL_SKIP_TOOLS = frozenset({"skill_manage", "memory", "todo"})


@dataclass(frozen=True)
class ModelNeeds:
    """What the agent around a model does for it. Built once per session by the runtime (`needs_for`) and handed
    to the parts that act on it; none of them looks at the model's name."""

    # the system prompt's style (agent.prompt): lean = short sections, a small library shown whole
    prompt: Literal["full", "lean"] = "full"
    # toolset tools not offered to it (an explicit registry, the reviewer's, keeps its own)
    skip_tools: frozenset[str] = frozenset()
    # write_file must have read an existing file before it overwrites it (tools.files)
    read_before_write: bool = False
    # its self-review (runtime.review): lean = judge first, then one short ask, or a code skill of a file task
    review: Literal["full", "lean"] = "full"
    # serves one call at a time (one in-process context and KV cache): sub-agents on it run one by one
    serial: bool = False
    # it may review and curate its own sessions when no reviewer model is configured; not a test double, whose
    # queued replies are the session's, not a reviewer's
    own_reviewer: bool = True
    # offered only tools that change nothing (a tool's `mutating`): for a model whose calls are no better than
    # chance, what it cannot do it does not get (the profile's own tools, a reviewer's, are kept)
    read_only: bool = False

    @property
    def lean(self) -> bool:
        return self.prompt == "lean"


FULL = ModelNeeds()
# The embedded llama.cpp model (a 1.5B model on 2 cores reads ~25-140 prompt tokens/s): short prompt, the easily
# confused tools left out, no overwriting of files it has not read, the small-model review, one call at a time.
SMALL_LOCAL = ModelNeeds(
    prompt="lean", skip_tools=SMALL_MODEL_SKIP_TOOLS, read_before_write=True, review="lean", serial=True
)

# The default SmolLM2-135M: 0 of 31 tool calls right in benchmarks/local_tools.py, and given `-t files` it once wrote
# a stray file copied from its prompt's example. It reads, it does not write.
TINY_LOCAL = replace(SMALL_LOCAL, read_only=True)

SCRIPTED = ModelNeeds(own_reviewer=False)  # the script test double (grove.llm.script)


@dataclass(frozen=True)
class ModelProfile:
    context_window: int = 128_000  # tokens, when the provider's settings name none
    max_tokens_field: str = "max_tokens"  # the request field carrying ModelSettings.max_tokens
    default_max_tokens: int | None = None  # sent when ModelSettings.max_tokens is None (the API requires one)
    temperature: bool = True  # send ModelSettings.temperature (some APIs refuse any sampling parameter)
    seed: bool = True  # send ModelSettings.seed
    tool_choice: bool = False  # send ModelSettings.tool_choice ("required", "none" or a tool's name)
    cache_breakpoints: bool = False  # mark cache breakpoints in OpenAI-format messages (Claude via gateways)
    repeat_penalty: float = 1.0  # local models: penalty against greedy decoding loops
    vision: bool = True  # takes image parts; False where a model is known not to (a clear error, not a 400)
    needs: ModelNeeds = FULL  # what the agent around the model does for it


class Rule(NamedTuple):  # not a frozen dataclass: that would cost every one-shot run ~0.5 ms of import
    """Applies `changes` to every model of API format `api` (or any: "*") and provider `provider` (or any) whose
    id starts with `model` (one prefix or several), the id taken in lower case and without a vendor prefix
    ("openai/gpt-5" -> "gpt-5"); `vendor`, when not "*", must be that prefix ("anthropic" in anthropic/claude-x)."""

    changes: tuple[tuple[str, Any], ...]
    api: str = "*"
    provider: str = "*"
    model: str | tuple[str, ...] = ""
    vendor: str = "*"

    def matches(self, api: str, provider: str, model: str) -> bool:
        vendor, _, base = model.lower().rpartition("/")
        return (
            self.api in ("*", api)
            and self.provider in ("*", provider)
            and self.vendor in ("*", vendor)
            and base.startswith(self.model)
        )


FIELDS = frozenset(f.name for f in fields(ModelProfile))


def rule(
    api: str = "*", provider: str = "*", model: str | tuple[str, ...] = "", vendor: str = "*", **changes: Any
) -> Rule:
    unknown = set(changes) - FIELDS
    if unknown:
        raise ValueError(f"unknown profile fields {sorted(unknown)}; use {sorted(FIELDS)}")
    return Rule(tuple(changes.items()), api, provider, model, vendor)


OPENAI_REASONING = ("o1", "o3", "o4", "gpt-5")
RULES: tuple[Rule, ...] = (
    # Anthropic's Messages API, version 2026-10-21 (what the SDK sends): max_tokens is required; no sampling
    # parameters at all (temperature, top_p, top_k are a 400 even at their defaults); no seed.
    rule(
        "anthropic",
        context_window=200_000,
        default_max_tokens=4096,
        temperature=False,
        seed=False,
        tool_choice=True,
    ),
    # OpenAI-format servers: OpenAI and OpenRouter take tool_choice; an arbitrary server (openai-compat: vLLM
    # without --enable-auto-tool-choice, older llama.cpp) may refuse it, so it is not sent there.
    rule("openai", tool_choice=True),
    rule("openai", "openai-compat", tool_choice=False),
    # Context windows by model family, the most specific last.
    rule("openai", model="gpt-4", context_window=8_192),
    rule("openai", model="gpt-4-32k", context_window=32_768),
    rule("openai", model="gpt-4-turbo", context_window=128_000),
    rule("openai", model="gpt-4o", context_window=128_000),
    rule("openai", model="gpt-4.1", context_window=1_047_576),
    rule("openai", model="gpt-3.5-turbo", context_window=16_385),
    rule("openai", model="gpt-5", context_window=400_000),
    rule("openai", model=("o1", "o3", "o4"), context_window=200_000),
    rule("openai", model="claude", context_window=200_000),
    rule("openai", model="gemini", context_window=1_048_576),
    # Reasoning models take max_completion_tokens (max_tokens is a 400) and only the default temperature.
    rule("openai", model=OPENAI_REASONING, max_tokens_field="max_completion_tokens", temperature=False),
    # Claude behind an OpenAI-compatible gateway caches only where the messages say so.
    rule("openai", vendor="anthropic", cache_breakpoints=True),
    # Models known to see no images: older OpenAI text models, the small reasoning ones, the embedded llama.cpp
    # model (its runtime here loads no vision projector). Unknown models may: their server decides.
    rule("openai", model=("gpt-3.5", "gpt-4", "o1-mini", "o3-mini"), vision=False),
    rule("openai", model=("gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-4-vision"), vision=True),
    rule("local", vision=False),
    # Greedy decoding of a small local model loops ("la femme, la femme, ..."); a light penalty breaks the loops.
    rule("local", repeat_penalty=1.1),
    rule("local", needs=SMALL_LOCAL),
    rule("local", model="smollm2", needs=TINY_LOCAL),
    rule("script", needs=SCRIPTED),
)


def profile_for(api: str, provider: str, model: str) -> ModelProfile:
    """The profile of `model` served by `provider` speaking `api`: the defaults with every matching rule applied."""
    profile = ModelProfile()
    for r in RULES:
        if r.matches(api, provider, model):
            profile = replace(profile, **dict(r.changes))
    return profile


def needs_for(spec: str | None) -> ModelNeeds:
    """What a model spec ("local:qwen2.5-coder-1.5b", "openai:gpt-5", a model's `name`) needs of the agent: its
    profile's `needs`, by the wire format of its provider in grove's table. What is no spec of a provider there
    (None, a plugin's provider, a bare name the provider does not take, as an in-code test double's "script")
    gets the full treatment."""
    from grove.providers_table import provider_named

    provider, sep, model = (spec or "").strip().partition(":")
    row = provider_named(provider)
    if row is None or not (sep or row.bare):
        return FULL
    return profile_for(row.api, provider, model or row.bare_model).needs
