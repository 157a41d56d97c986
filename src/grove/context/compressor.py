"""When and how a session's context is compressed: the triggers, the four phases, the cooldown, persistence.

The store is the source of truth: compression rewrites the active context in one transaction, leaves every
original message in state.db (inactive, searchable) and returns the new live message list, system prompt first.
The system prompt itself is never touched: the summary is a conversation message placed after the head.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from grove.context.prune import prune_tool_results
from grove.context.settings import CompressionSettings
from grove.context.split import split_conversation
from grove.context.summary import SUMMARY_MARKER, SummaryError, render, summarise
from grove.context.tokens import conversation_tokens
from grove.llm.errors import ModelError
from grove.llm.types import Message, Model, ToolSchema, Usage
from grove.store.sessions import SessionStore

BeforeCompress = Callable[[list[Message]], None]


@dataclass
class CompressionReport:
    reason: str  # threshold | safety | context_overflow | manual
    status: str  # summary | skeleton (summary call failed or cooling down) | pruned (phase 1 was enough) | skipped
    tokens_before: int
    tokens_after: int
    tool_results_pruned: int = 0
    messages_compressed: int = 0
    error: str | None = None

    def line(self) -> str:
        text = f"context compressed ({self.reason}, {self.status}): ~{self.tokens_before:,} -> ~{self.tokens_after:,} tokens"
        return text + (f"; summary call failed: {self.error}" if self.error else "")


class Compressor:
    """One session's compressor. Call `before_call` before each model call and `observe` after it."""

    def __init__(
        self,
        model: Model,
        store: SessionStore,
        session_id: str,
        settings: CompressionSettings | None = None,
        *,
        summarizer: Model | None = None,
        before_compress: BeforeCompress | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.model = model
        self.store = store
        self.session_id = session_id
        self.settings = settings or CompressionSettings()
        self.summarizer = summarizer or model
        self.before_compress = before_compress
        self.on_notice = on_notice
        self.last_prompt_tokens = 0  # provider-reported size of the last request
        self.calls = 0  # model calls observed, the clock of the cooldown
        self.cooldown_until = 0
        self.reports: list[CompressionReport] = []
        self.learned_window: int | None = None  # set when the provider refused a prompt we thought fitted

    @property
    def window(self) -> int:
        assumed = int(getattr(self.model, "context_window", 0) or 128_000)
        return min(assumed, self.learned_window) if self.learned_window else assumed

    def observe(self, usage: Usage) -> None:
        self.calls += 1
        self.last_prompt_tokens = usage.prompt_tokens

    def due(self, messages: list[Message], tools: list[ToolSchema]) -> str | None:
        """Why the next call should be compressed first, or None."""
        if not self.settings.enabled:
            return None
        if self.last_prompt_tokens > self.settings.threshold_tokens(self.window):
            return "threshold"
        if conversation_tokens(messages, tools) > self.settings.safety_tokens(self.window):
            return "safety"
        return None

    def before_call(self, messages: list[Message], tools: list[ToolSchema]) -> list[Message]:
        reason = self.due(messages, tools)
        return self.compress(messages, reason) if reason else messages

    def compress(self, messages: list[Message], reason: str = "manual") -> list[Message]:
        """Compress now; returns the new live list (the same list when there was nothing to gain)."""
        report = self._compress(messages, reason)
        self.reports.append(report)
        # the provider's last figure describes the old context; wait for a fresh one before the threshold fires again
        self.last_prompt_tokens = 0
        if report.status == "skipped":
            return messages
        if self.on_notice:
            self.on_notice(report.line())
        return (
            messages[:1] + self.store.messages(self.session_id)
            if _has_system(messages)
            else (self.store.messages(self.session_id))
        )

    def _compress(self, messages: list[Message], reason: str) -> CompressionReport:
        # the ledger and its checker load on the first compression: most one-shot runs never compress
        from grove.context.check import completed
        from grove.context.skeleton import Skeleton

        cfg = self.settings
        system = messages[:1] if _has_system(messages) else []
        entries = self.store.context_entries(self.session_id)
        convo = [m for _, _, m in entries]
        before = conversation_tokens(system + convo)
        if reason == "context_overflow" and before < self.window:
            # the provider refused what we estimated would fit: its real window is smaller than assumed
            self.learned_window = int(before * 0.9)
        split = split_conversation(convo, cfg.head_messages, cfg.tail_tokens(self.window))
        pruned, pruned_at = prune_tool_results(convo, range(split.tail_start), cfg.tool_result_chars)
        # the summariser reads the raw middle: facts inside long tool results must reach it, not their placeholders
        middle = [convo[i] for i in split.middle]
        middle_tokens = conversation_tokens(middle)
        after_prune = conversation_tokens(system + pruned)
        only_summary = all(
            _is_summary(m) for m in middle
        )  # nothing new since the last one: no storm of updates
        summarise_middle = (
            not only_summary
            and middle_tokens >= cfg.min_middle_tokens
            and (
                reason in ("manual", "context_overflow")
                or after_prune > cfg.threshold_tokens(self.window) * cfg.target_ratio
            )
        )
        if not pruned_at and not summarise_middle:
            return CompressionReport(reason, "skipped", before, before)
        if self.before_compress:
            try:
                self.before_compress([dict(m) for m in convo])
            except Exception as e:  # a memory hook must never cost the user the compression, or the turn
                if self.on_notice:
                    self.on_notice(f"before-compress hook failed: {e}")
        previous = self.store.compressions(self.session_id)
        skeleton = Skeleton.from_json(previous[-1]["skeleton"] if previous else None)
        skeleton.add_messages(convo[: split.tail_start], convo)
        record = {"reason": reason, "skeleton": skeleton.to_json(), "tool_results_pruned": len(pruned_at)}
        if not summarise_middle:
            inserts = [(entries[i][1], pruned[i]) for i in pruned_at]
            after = after_prune
            self.store.compact(
                self.session_id,
                [entries[i][0] for i in pruned_at],
                inserts,
                {
                    **record,
                    "status": "pruned",
                    "tokens_before": before,
                    "tokens_after": after,
                    "summary": previous[-1]["summary"] if previous else None,
                },
            )
            return CompressionReport(reason, "pruned", before, after, len(pruned_at))

        prior = previous[-1]["summary"] if previous else None
        updating = prior if any(_is_summary(m) for m in middle) else None
        model_summary, note, error = self._summary(middle, updating, middle_tokens)
        if model_summary is None:
            model_summary = updating  # a failed update keeps the earlier summary rather than losing it
        current = _current_request(convo, split.tail_start)
        budget = cfg.ledger_tokens(self.window)
        # a model summary is checked against the ledger: what it misses or gets wrong is added from the ledger
        body, facts_text = (
            completed(model_summary, skeleton, budget) if model_summary else (None, skeleton.render(budget))
        )
        summary_message: Message = {
            "role": "user",
            "content": render(body, facts_text, note=note, current_request=current),
        }
        head_pruned = [i for i in pruned_at if i < split.head_end]
        inserts = [(entries[i][1], pruned[i]) for i in head_pruned]
        inserts.append((entries[split.head_end][1], summary_message))
        deactivate = [entries[i][0] for i in head_pruned] + [entries[i][0] for i in split.middle]
        new_convo = [*pruned[: split.head_end], summary_message, *convo[split.tail_start :]]
        after = conversation_tokens(system + new_convo)
        status = "summary" if error is None and note is None else "skeleton"
        self.store.compact(
            self.session_id,
            deactivate,
            inserts,
            {
                **record,
                "status": status,
                "summary": model_summary,
                "error": error,
                "tokens_before": before,
                "tokens_after": after,
                "messages_compressed": len(split.middle),
            },
        )
        return CompressionReport(reason, status, before, after, len(pruned_at), len(split.middle), error)

    def _summary(
        self, middle: list[Message], previous: str | None, middle_tokens: int
    ) -> tuple[str | None, str | None, str | None]:
        """(model summary, note when there is none, error text). Fails soft: never raises for the model."""
        if self.calls < self.cooldown_until:
            return None, "the summariser is cooling down after a failed call", None
        budget = self.settings.summary_budget(middle_tokens)
        # small windows: a 2K-token floor would eat the context it is meant to free, or the summariser's own window
        # the exact facts travel in the ledger; the model's narrative stays small beside it
        budget = min(budget, max(256, self.settings.threshold_tokens(self.window) // 8))
        budget = min(budget, max(256, int(getattr(self.summarizer, "context_window", 0) or 128_000) // 4))
        try:
            text, usage = summarise(self.summarizer, middle, previous, budget)
        except (ModelError, SummaryError) as e:
            self.cooldown_until = self.calls + self.settings.cooldown_calls
            return None, "the summary call failed", str(e)
        self.store.add_usage(self.session_id, usage)  # the summary is paid for like any other call
        return text, None, None


def _has_system(messages: list[Message]) -> bool:
    return bool(messages) and messages[0].get("role") == "system"


def _is_summary(message: Message) -> bool:
    content = message.get("content")
    return isinstance(content, str) and content.startswith(SUMMARY_MARKER)


def _current_request(convo: list[Message], tail_start: int) -> str | None:
    """The latest real user message, when it is about to leave the context (a long turn still in progress)."""
    for i in range(len(convo) - 1, -1, -1):
        m = convo[i]
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, str) and not content.startswith("[grove"):
            return content if i < tail_start else None
    return None
