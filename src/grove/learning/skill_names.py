"""A learned skill is named for its kind of task, never for one instance of it: the words of a name that are the
task's own values (a number, a file's name, a quoted value, an identifier, the name after "column" or "key") are
found, and dropped or sent back."""

from __future__ import annotations

import re

MIN_WORDS = 2  # what is left of a name must still say what the tool does ("clean-tsv", not "clean")
STOPWORDS = frozenset(
    {"a", "an", "the", "to", "of", "in", "into", "for", "from", "and", "by", "with", "on", "at"}
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_FILE = re.compile(r"(?<![\w.])([\w-]+(?:/[\w-]+)*)\.[A-Za-z]\w{0,5}\b")  # its extension is the format: kept
_QUOTED = re.compile(r"'([^']{1,60})'|\"([^\"]{1,60})\"|`([^`]{1,60})`")
# an identifier: snake_case, with digits, CamelCase, or a long ALL-CAPS word (TIMEOUT; short ones are formats: JSON)
_IDENT = re.compile(r"\b(?:\w+_\w+|[A-Za-z]+\d\w*|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[A-Z]{5,})\b")
_NAMED = re.compile(
    r"\b(?:function|method|class|column|key|field|constant|variable|section|table|module|package|setting)s?\s+"
    r"['\"`]?([A-Za-z_][\w-]*)"
)
_NOT_VALUES = STOPWORDS | {
    "every",
    "each",
    "all",
    "its",
    "it",
    "is",
    "as",
    "or",
    "that",
    "which",
    "this",
    "named",
    "called",
}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]+|\d+", text.lower())


def task_values(request: str) -> list[tuple[str, ...]]:
    """The request's own values, each as the words a name would spell it with (MAX_RETRIES -> max, retries)."""
    found: list[str] = []
    found += [m.group(1) for m in _FILE.finditer(request)]
    found += [next(g for g in m.groups() if g) for m in _QUOTED.finditer(request)]
    found += _IDENT.findall(request)
    found += [v for v in _NAMED.findall(request) if v.lower() not in _NOT_VALUES]
    out = {tuple(words(v)) for v in [*found, *_NUMBER.findall(request)]}
    return sorted(v for v in out if v and not set(v) <= STOPWORDS)


def values_in_name(name: str, request: str) -> list[str]:
    """The task's values that the skill's name carries, as they read in the name."""
    parts = words(name)
    hits = []
    for value in task_values(request):
        n = len(value)
        if any(tuple(parts[i : i + n]) == value for i in range(len(parts) - n + 1)):
            hits.append("-".join(value))
    return sorted(set(hits))


def kind_name(name: str, request: str) -> str | None:
    """The name without the task's values (and stray joining words at its ends), or None when too little of it
    is left to name the kind of task."""
    parts = words(name)
    drop = [False] * len(parts)
    for value in task_values(request):
        n = len(value)
        for i in range(len(parts) - n + 1):
            if tuple(parts[i : i + n]) == value:
                drop[i : i + n] = [True] * n
    kept = [p for p, d in zip(parts, drop, strict=True) if not d]
    while kept and kept[0] in STOPWORDS:
        kept.pop(0)
    while kept and kept[-1] in STOPWORDS:
        kept.pop()
    if len([p for p in kept if p not in STOPWORDS]) < MIN_WORDS:
        return None
    return "-".join(kept)
