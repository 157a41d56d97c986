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
    opener = ""  # the fence line an open code block started with, reopened in the next piece
    rest = text
    while rest:
        budget = limit - len(opener) - (len(FENCE) + 1)  # room to reopen and close a fence
        if len(opener) + len(rest) <= limit and _fence_state(rest, opener) == "":
            parts.append(opener + rest)
            break
        if len(opener) + len(rest) <= limit:
            budget = limit - len(opener) - (len(FENCE) + 1)
        cut = _cut_point(rest, budget)
        piece, rest = rest[:cut], rest[cut:].lstrip("\n") if rest[cut : cut + 1] == "\n" else rest[cut:]
        if rest.startswith(" "):
            rest = rest[1:]  # the space a word break cut at
        body = opener + piece.rstrip("\n")
        state = _fence_state(piece, opener)
        if state:
            body += "\n" + FENCE
        parts.append(body)
        opener = state + "\n" if state else ""
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
