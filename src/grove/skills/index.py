"""Level 0 of progressive disclosure: the compact, deterministic skills index that goes into the system prompt.

The richest layout that fits a token budget wins: names with short descriptions for small libraries, names
grouped by category for mid-sized ones, categories folded with counts for large ones. The budget grows
sublinearly with the library (about 600 tokens at 50 skills, 2,300 at 1,000). The output depends only on the
skill files (sorted, no paths, no times, no usage counts), so it is byte-stable for the provider's prefix cache.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from grove.skills.skill import Skill

HEADER = (
    "## Skills\n"
    "Saved procedures for recurring tasks. Before a task one fits, load it: skill_view(name). "
    "Find others: skills_search(query).\n"
)
FOLDED_NOTE = "Large library: a few names per category shown; skills_search(query) finds the rest.\n"
DESCRIPTION_LENGTHS = (100, 70, 45)
FOLD_SIZES = (40, 30, 20, 12, 8, 5, 3, 2, 1, 0)
CHARS_PER_TOKEN = 3.4  # cl100k: 4.1-4.6 on the real library, 3.6-3.9 on tool-task names; kept below both


def token_budget(n: int) -> int:
    return int(600 * max(1.0, n / 50) ** 0.45)


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


def _short(description: str, limit: int) -> str:
    """The description's first sentence, cut at a word boundary to `limit` characters."""
    first = description.split(". ")[0].rstrip(".")
    if len(first) <= limit:
        return first
    cut = first[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def _by_category(skills: list[Skill]) -> dict[str, list[Skill]]:
    groups: dict[str, list[Skill]] = defaultdict(list)
    for s in skills:
        groups[s.category].append(s)
    # pinned skills first, then by name: the order never depends on the file system or on usage
    return {c: sorted(groups[c], key=lambda s: (not s.pinned, s.name)) for c in sorted(groups)}


def _signature(skill: Skill) -> str:
    """A code skill's call shape, e.g. "(values: list[float], window: int = 7) -> list[float]"; '' otherwise."""
    from grove.skills.code_meta import index_signature

    return index_signature(skill.metadata)


def render_described(skills: list[Skill], limit: int) -> str:
    lines = [HEADER]
    for category, group in _by_category(skills).items():
        lines.append(f"{category}:\n")
        lines += [f"- {s.name}{_signature(s)}: {_short(s.description, limit)}\n" for s in group]
    return "".join(lines)


def render_names(skills: list[Skill]) -> str:
    lines = [HEADER]
    lines += [
        f"{c}: {', '.join(s.name + _signature(s) for s in g)}\n" for c, g in _by_category(skills).items()
    ]
    return "".join(lines)


def render_folded(skills: list[Skill], shown: int) -> str:
    lines = [HEADER, FOLDED_NOTE]
    for category, group in _by_category(skills).items():
        names = [s.name for s in group[:shown]]
        more = len(group) - len(names)
        tail = (", " if names else "") + f"+{more} more" if more else ""
        lines.append(f"{category} ({len(group)}): {', '.join(names)}{tail}\n")
    return "".join(lines)


def render_index(skills: list[Skill], budget: int | None = None) -> str:
    """The index text for `skills` within `budget` estimated tokens ('' for no skills)."""
    if not skills:
        return ""
    budget = token_budget(len(skills)) if budget is None else budget
    candidates = [lambda lim=lim: render_described(skills, lim) for lim in DESCRIPTION_LENGTHS]
    candidates.append(lambda: render_names(skills))
    candidates += [lambda k=k: render_folded(skills, k) for k in FOLD_SIZES]
    text = ""
    for make in candidates:
        text = make()
        if estimate_tokens(text) <= budget:
            return text
    return text  # more categories than any budget: the smallest layout still beats none


def skills_index_text(settings: Any, workspace: Path) -> str:
    """The level-0 index for the system prompt: '' when there are no skills; byte-stable for the same files.

    Skills the curator marked stale are left out (skills_search still finds them).
    """
    from grove.skills.discover import discover
    from grove.skills.stale import stale_names

    hidden = stale_names(settings)
    return render_index([s for s in discover(settings, workspace).sorted() if s.name not in hidden])
