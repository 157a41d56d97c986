"""Splitting a long answer into messages a platform accepts: at paragraph, then line, then word breaks, and
never inside a code fence without closing and reopening it."""

from __future__ import annotations

FENCE = "```"


def split_message(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters whose concatenation (minus added fence lines) is `text`."""
    if limit < 20:
        raise ValueError("limit must leave room for a code fence")
    text = text.strip("\n")
    if not text:
        return []
    parts: list[str] = []
    opener = ""  # the fence line of a code block left open by the previous piece, reopened in this one
    rest = text
    while rest:
        if len(opener) + len(rest) <= limit and not _fence_state(rest, opener):
            parts.append(opener + rest)
            break
        budget = max(limit - len(opener) - len(FENCE) - 1, 1)  # room to close the block at the end
        cut = _cut_point(rest, budget)
        piece, rest = rest[:cut], rest[cut:]
        rest = rest.lstrip("\n") if rest.startswith("\n") else rest.removeprefix(" ")  # the break cut at
        state = _fence_state(piece, opener)
        parts.append(opener + piece.rstrip("\n") + (f"\n{FENCE}" if state else ""))
        # a long fence line ("```" plus a language) would eat the budget: reopen it bare then
        opener = (state if len(state) <= limit // 4 else FENCE) + "\n" if state else ""
    return [p for p in parts if p.strip()]


def _cut_point(text: str, budget: int) -> int:
    """Where to cut `text` (not after `budget`): the last paragraph break, else line break, else space."""
    window = text[:budget]
    for sep in ("\n\n", "\n", " "):
        at = window.rfind(sep)
        if at > budget // 3:
            return at
    return budget


def _fence_state(piece: str, opener: str) -> str:
    """The fence line still open at the end of `piece` ("" if none), given a block opened before it."""
    open_line = opener.rstrip("\n")
    for line in piece.split("\n"):
        if line.lstrip().startswith(FENCE):
            open_line = "" if open_line else line.strip()
    return open_line
