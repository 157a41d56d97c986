"""An answer's markdown set aside without moving a character: emphasis, headings, check marks and table pipes
become spaces or clause marks, so the grammar of what they wrap is read as prose and claims keep their places."""

from __future__ import annotations

from grove.lazy_regex import later

_FENCED = later(r"(?ms)^[ \t]*(```|~~~).*?(^[ \t]*\1[ \t]*$|\Z)")
_EMPHASIS = later(r"\*\*|__|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])")
_HEADING = later(r"(?m)^[ \t]*#{1,6}[ \t]+")
# a check mark or a tick emoji reads as "done" and nothing more; a cross is a failure, kept as a word
_TICKS = later("[\u2705\u2714\u2611\u2713\ufe0f\U0001f389\U0001f680]")
_CROSSES = later("[\u274c\u2716\u2717\u274e]")
# a task list: "[x]" is done, "[ ]" is not (a plan, or work left)
_CHECKED = later(r"\[[xX]\]")
_UNCHECKED = later(r"\[ \]")
_TABLE_RULE = later(r"(?m)^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")
_ROW_EDGE = later(r"(?m)^([ \t]*)\||\|([ \t]*)$")


def plain(text: str) -> str:
    """The text with markup blanked, the same length as `text`: fenced code blank, a table row's inner pipes a
    status mark ("lint | clean" reads "lint ¦ clean"), its edge pipes and rule lines spaces."""
    # a fenced block is code the answer shows, not prose it claims: its lines become blank
    text = _FENCED.sub(lambda m: "".join(c if c == "\n" else " " for c in m.group(0)), text)
    text = _TABLE_RULE.sub(lambda m: " " * len(m.group(0)), text)
    text = _ROW_EDGE.sub(lambda m: " " * len(m.group(0)), text)
    text = text.replace("|", "\u00a6")
    text = _HEADING.sub(lambda m: " " * len(m.group(0)), text)
    text = _EMPHASIS.sub(lambda m: " " * len(m.group(0)), text)
    text = _CROSSES.sub("\u00d7", text)
    text = _UNCHECKED.sub(" \u00d7 ", text)
    text = _CHECKED.sub("   ", text)
    return _TICKS.sub(" ", text)


def crossed(text: str) -> bool:
    """Whether a line carries a failure mark (✗, ❌): a status it reports as failed is no claim of success."""
    return "\u00d7" in text


def ticks(text: str) -> bool:
    """Whether a line carries a check mark (✅, ✔): what it states, it states as done."""
    return _TICKS.search(text) is not None or _CHECKED.search(text) is not None
