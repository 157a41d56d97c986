"""Compression knobs, with the defaults the design names; the lead may later feed them from Settings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CompressionSettings:
    threshold: float = 0.5  # compress when the provider-reported prompt passes this share of the window
    safety: float = 0.85  # ... or when the estimated next request would pass this share
    tool_result_chars: int = 200  # phase 1: older tool results longer than this become a placeholder
    head_messages: int = 2  # phase 2: the first messages after the system prompt, kept verbatim
    tail_ratio: float = 0.3  # phase 2: the protected tail, as a share of the threshold's tokens
    target_ratio: float = (
        0.5  # phase 1 alone is enough when it brings the prompt under this share of threshold
    )
    summary_ratio: float = 0.2  # phase 3: summary budget as a share of the tokens it replaces ...
    summary_min: int = 2_000  # ... at least this many tokens ...
    summary_max: int = 12_000  # ... at most this many, and never more than the text it replaces
    ledger_ratio: float = 0.35  # the fact ledger budget, a share of the threshold (constraints may exceed it)
    min_middle_tokens: int = 200  # below this there is nothing worth a summary call
    cooldown_calls: int = 8  # after a failed summary call, this many model calls use the skeleton alone
    enabled: bool = True  # the automatic triggers; an overflow error or /compress still compresses

    def threshold_tokens(self, window: int) -> int:
        return int(window * self.threshold)

    def safety_tokens(self, window: int) -> int:
        return int(window * self.safety)

    def tail_tokens(self, window: int) -> int:
        return max(1, int(self.threshold_tokens(window) * self.tail_ratio))

    def ledger_tokens(self, window: int) -> int:
        return max(500, int(self.threshold_tokens(window) * self.ledger_ratio))

    def summary_budget(self, replaced_tokens: int) -> int:
        wanted = max(self.summary_min, int(replaced_tokens * self.summary_ratio))
        return max(1, min(wanted, self.summary_max, replaced_tokens))
