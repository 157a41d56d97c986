"""SpendGuard: a Model wrapper that reserves each request's estimate under the caps before it is sent and settles
it with the provider's reported usage after. Every agent's model passes through one (grove.runtime.assemble)."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

from grove.config.spend import SpendCaps, SpendConfig
from grove.dataclass_io import section
from grove.llm.estimate import estimate_tokens
from grove.llm.pricing import cost_usd
from grove.llm.types import Completion, Message, Model, ModelSettings, TextCallback, ToolSchema, Usage
from grove.spend.composition import compose
from grove.spend.ledger import Caps, Ledger

LEDGER_FILE = "spend.db"


def scope_caps(config: SpendConfig, scopes: list[str]) -> dict[str, Caps]:
    """Each scope's caps from config: 'all' the top level; 'key:N', 'user:P:I', 'profile:S' their maps (an
    entry for the member, else '*', else none)."""
    maps = {
        "key": ("keys", config.keys),
        "user": ("users", config.users),
        "profile": ("profiles", config.profiles),
    }
    out: dict[str, Caps] = {"all": _caps(config, "spend")}
    for scope in scopes:
        kind, _, member = scope.partition(":")
        if kind not in maps or not member:
            raise ValueError(f"spend scope {scope!r} must be key:NAME, user:PLATFORM:ID or profile:SOURCE")
        name, table = maps[kind]
        if member in table:
            out[scope] = _caps(table[member], f"spend.{name}.{member}")
        elif "*" in table:
            out[scope] = _caps(table["*"], f"spend.{name}.*")
        else:
            out[scope] = Caps(setting=f"spend.{name}.{member}")
    return out


def _caps(c: SpendCaps, setting: str) -> Caps:
    return Caps(c.day_usd, c.month_usd, c.day_tokens, c.month_tokens, setting)


class SpendGuard:
    """Reserve, call, settle. A request the caps refuse raises CapReached before anything is sent; a request that
    fails is settled at zero (its estimate does not linger)."""

    spend_guarded = True  # read through wrappers (a child's BudgetedModel): one guard per chain, never two

    def __init__(
        self, inner: Model, ledger: Ledger, caps: dict[str, Caps], output_reserve: int = 1024
    ) -> None:
        self.inner = inner
        self.ledger = ledger
        self.caps = caps
        self.output_reserve = output_reserve
        # what each recent request was made of (grove.spend.composition), for --json and chat's /context
        self.compositions: deque[dict[str, Any]] = deque(maxlen=256)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def context_window(self) -> int:
        return self.inner.context_window

    def __getattr__(self, attr: str) -> Any:  # the router's usage and calls, a model's count_tokens, ...
        return getattr(self.inner, attr)

    def estimate(self, messages: list[Message], tools: list[ToolSchema], settings: ModelSettings) -> Usage:
        prompt = estimate_tokens(messages) + (estimate_tokens(tools) if tools else 0)
        return Usage(prompt_tokens=prompt, completion_tokens=settings.max_tokens or self.output_reserve)

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        guess = self.estimate(messages, tools, settings)
        rid = self.ledger.reserve_all(
            self.caps, cost_usd(self.inner.name, guess), guess.prompt_tokens + guess.completion_tokens
        )
        try:
            completion = self.inner.complete(messages, tools, settings, on_text)
        except BaseException:
            self.ledger.settle(rid, 0.0, 0)
            raise
        usage = completion.usage
        self.compositions.append(compose(messages, tools, usage))
        self.ledger.settle(
            rid,
            cost_usd(completion.model or self.inner.name, usage),
            usage.prompt_tokens + usage.completion_tokens,
        )
        return completion


def guard(model: Model, settings: Any, source: str, scopes: list[str] | tuple[str, ...] = ()) -> Model:
    """`model` behind the spend caps of settings for 'all', the entrance (`source`) and `scopes`; a model already
    guarded (a child on its parent's model) is returned as it is, so no request counts twice."""
    if getattr(model, "spend_guarded", False):
        return model
    config = section(settings, "spend", SpendConfig)
    home = Path(settings.home)
    home.mkdir(parents=True, exist_ok=True)
    caps = scope_caps(config, [f"profile:{source}", *scopes])
    return SpendGuard(model, Ledger(home / LEDGER_FILE), caps, config.output_reserve)
