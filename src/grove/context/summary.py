"""Phase 3 and 4: the model summary of the middle in fixed sections, and the marked message that replaces it."""

from __future__ import annotations

from grove.context.prune import short_args
from grove.llm.types import Message, Model, ModelSettings, Usage

SUMMARY_MARKER = "[grove: compressed context]"
SECTIONS = (
    "Goal",
    "Constraints and preferences",
    "Progress",
    "Key decisions",
    "Relevant files",
    "Next steps",
    "Critical context",
)
SYSTEM = """You compress part of a long working session between a user and an AI agent, so the agent can keep \
working with less context. Write a summary with exactly these markdown sections, in this order:
## Goal
## Constraints and preferences
## Progress
(three lists: Done, In progress, Blocked)
## Key decisions
## Relevant files
## Next steps
## Critical context
Keep exact file names, paths, numbers, identifiers, commands, error messages, and each decision with its reason. \
Drop chit-chat and anything already superseded. Stay under {budget} tokens. Output only the summary."""
UPDATE = """The summary written at the previous compression is below. Update it with the newer turns that follow: \
keep every fact that still holds, move finished work to Done, add new decisions, files and next steps. Do not \
start from scratch and do not drop facts.

<previous-summary>
{previous}
</previous-summary>"""


class SummaryError(Exception):
    """The summariser answered, but not with a usable summary."""


def transcript(messages: list[Message], max_chars: int) -> str:
    """The middle as plain text for the summariser. Over `max_chars`, tool results are shortened first (the
    conversation carries the decisions); only then is the middle of the transcript cut out."""
    out = ""
    for tool_chars, other_chars in ((2000, 6000), (500, 2000), (120, 800)):
        out = "\n\n".join(_lines(messages, tool_chars, other_chars))
        if len(out) <= max_chars:
            return out
    keep_head = max_chars // 3
    keep_tail = max_chars - keep_head
    return f"{out[:keep_head]}\n[… {len(out) - max_chars:,} chars omitted …]\n{out[-keep_tail:]}"


def _lines(messages: list[Message], tool_chars: int, other_chars: int) -> list[str]:
    lines: list[str] = []
    for m in messages:
        content = m.get("content")
        text = content if isinstance(content, str) else ("" if content is None else str(content))
        if isinstance(content, list):  # content parts: their text, and a mark per image (never its base64)
            text = " ".join(
                "[image]" if p.get("type") == "image_url" else str(p.get("text", ""))
                for p in content
                if isinstance(p, dict)
            )
        if text.startswith(SUMMARY_MARKER):
            continue  # an earlier summary arrives as <previous-summary>, not as a turn
        role = m.get("role", "?")
        if role == "tool":
            lines.append(f"TOOL RESULT ({m.get('name') or 'tool'}): {_clip(text, tool_chars)}")
            continue
        calls = [
            f"{(c.get('function') or {}).get('name', '?')}({short_args((c.get('function') or {}).get('arguments') or '')})"
            for c in m.get("tool_calls") or []
        ]
        line = f"{role.upper()}: {_clip(text, other_chars)}" if text else f"{role.upper()}:"
        if calls:
            line += " [calls " + "; ".join(calls) + "]"
        lines.append(line)
    return lines


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" […{len(text) - limit:,} more chars]"


def summarise(
    model: Model,
    middle: list[Message],
    previous: str | None,
    budget: int,
    timeout: float = 120.0,
) -> tuple[str, Usage]:
    """One model call: (summary, its usage). Raises ModelError (from the model) or SummaryError (no text)."""
    # the input and the answer must both fit the summariser's own window (~3 chars a token for code and logs)
    window = int(getattr(model, "context_window", 0) or 128_000)
    max_chars = max(4_000, (window - budget - 1_024) * 3)
    parts = []
    if previous:
        parts.append(UPDATE.format(previous=previous))
    parts.append("<turns>\n" + transcript(middle, max_chars) + "\n</turns>")
    messages: list[Message] = [
        {"role": "system", "content": SYSTEM.format(budget=budget)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]
    completion = model.complete(
        messages, [], ModelSettings(max_tokens=budget, temperature=0, timeout=timeout)
    )
    text = (completion.text or "").strip()
    if not text:
        raise SummaryError("the summariser returned no text")
    max_chars_out = budget * 4
    if len(text) > max_chars_out:  # a model that ignores the budget must not make the context grow back
        text = text[:max_chars_out].rstrip() + "\n[summary cut at its budget]"
    return text, completion.usage


def render(
    model_summary: str | None, skeleton_text: str, *, note: str | None, current_request: str | None
) -> str:
    """The message that stands in for the middle: clearly reference material, with the request to answer."""
    if current_request is not None:
        pointer = (
            "The request being worked on is repeated at the end of this summary; continue it, and answer the "
            "latest user message after this summary if there is one."
        )
    else:
        pointer = (
            "Answer the latest user message after this summary; do not redo work the summary lists as done."
        )
    if model_summary and note:
        body = (
            f"{model_summary}\n\n(Not updated with the latest turns: {note}. The facts below include them.)"
        )
    else:
        body = model_summary or f"(No model summary: {note or 'not available'}. The facts below are exact.)"
    parts = [
        f"{SUMMARY_MARKER} Earlier turns of this session were compressed to fit the context window. This is "
        f"reference material about the work so far, not new instructions. {pointer}",
        body,
        skeleton_text,
        "The compressed-away messages are kept in state.db; session search finds their full text.",
    ]
    if current_request is not None:
        parts.append(f"## The request being worked on (verbatim)\n{current_request}")
    parts.append("[end of compressed context]")
    return "\n\n".join(parts)
