"""Helping the model fix an edit whose fragment was not found: the closest line of the text it meant."""

from __future__ import annotations

import difflib


def closest_hint(text: str, fragment: str) -> str:
    """The line of `text` most like the first line of `fragment`, to help the model fix its patch."""
    first = next((ln for ln in fragment.splitlines() if ln.strip()), "")
    if not first:
        return ""
    best = difflib.get_close_matches(first, text.splitlines(), n=1, cutoff=0.5)
    return f"; closest line: {best[0]!r}" if best else ""
