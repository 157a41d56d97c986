"""Level 0 of progressive disclosure: the compact, deterministic skills index that goes into the system prompt.

The richest layout that fits a token budget wins: names with short descriptions for small libraries, names
grouped by category for mid-sized ones, categories folded with counts for large ones, and past that one compact
paragraph ("N skills in M groups; use skills_search") naming the pinned and most-used skills and the largest
groups. The budget grows sublinearly with the library (about 600 tokens at 50 skills) and stops at MAX_BUDGET, so
the index is bounded at any size. The output depends only on the skill files and the usage ranking (sorted, no
paths, no times), so it is byte-stable for the provider's prefix cache.
"""

from __future__ import annotations

import sqlite3
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
MAX_BUDGET = 2300  # estimated tokens; real cl100k tokens stay below 2,500 whatever the library's size
NAMED = 12  # pinned and most-used skills the compact layout names at most (each list)
GROUPS_NAMED = 40  # the largest groups it names at most: more says little and tokenises poorly


def token_budget(n: int) -> int:
    return min(MAX_BUDGET, int(600 * max(1.0, n / 50) ** 0.45))


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


def render_compact(skills: list[Skill], budget: int, most_used: list[str] | None = None) -> str:
    """Past every other layout: the counts, the pinned and most-used skills by name, and the largest groups
    (as many as the budget holds), each list in a fixed order."""
    groups = _by_category(skills)
    known = {s.name for s in skills}
    pinned = sorted(s.name for s in skills if s.pinned)
    used = [n for n in (most_used or []) if n in known and n not in pinned][:NAMED]
    lines = [
        HEADER,
        f"{len(skills)} skills in {len(groups)} groups: too many to list; use skills_search(query) to find one, "
        "then skill_view(name) to load it.\n",
    ]
    if pinned:
        more = f" (+{len(pinned) - NAMED} more)" if len(pinned) > NAMED else ""
        lines.append(f"Pinned: {', '.join(pinned[:NAMED])}{more}\n")
    if used:
        lines.append(f"Most used: {', '.join(used)}\n")
    largest = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    shown: list[str] = []
    for category, group in largest[:GROUPS_NAMED]:
        item = f"{category} ({len(group)})"
        if estimate_tokens("".join(lines) + "Groups: " + ", ".join([*shown, item]) + ", ...\n") > budget:
            break
        shown.append(item)
    if shown:
        tail = ", ..." if len(shown) < len(groups) else ""
        lines.append(f"Groups: {', '.join(shown)}{tail}\n")
    return "".join(lines)


def render_index(skills: list[Skill], budget: int | None = None, most_used: list[str] | None = None) -> str:
    """The index text for `skills` within `budget` estimated tokens ('' for no skills)."""
    if not skills:
        return ""
    budget = token_budget(len(skills)) if budget is None else budget
    candidates = []
    names_chars = sum(len(s.name) + 2 for s in skills)
    if estimate_tokens(" " * names_chars) <= budget:  # a layout listing every name can fit at all
        candidates += [lambda lim=lim: render_described(skills, lim) for lim in DESCRIPTION_LENGTHS]
        candidates.append(lambda: render_names(skills))
    if len(_by_category(skills)) * 6 <= budget:  # folding lists every category: only for a few hundred
        candidates += [lambda k=k: render_folded(skills, k) for k in FOLD_SIZES]
    for make in candidates:
        text = make()
        if estimate_tokens(text) <= budget:
            return text
    return render_compact(skills, budget, most_used)


def skills_index_text(settings: Any, workspace: Path) -> str:
    """The level-0 index for the system prompt: '' when there are no skills; byte-stable for the same files.

    Skills the curator marked stale are left out (skills_search still finds them).
    """
    from grove.skills.discover import discover
    from grove.skills.stale import stale_names

    hidden = stale_names(settings)
    skills = [s for s in discover(settings, workspace).sorted() if s.name not in hidden]
    return render_index(skills, most_used=_most_used(settings) if len(skills) > 200 else None)


def _most_used(settings: Any) -> list[str]:
    """Skill names by uses in working sessions, most first (ties by name); [] without a state.db."""
    from grove.skills.catalog import database

    db = database(settings)
    if db is None:
        return []
    try:
        with db.lock:
            rows = db.conn.execute(
                "SELECT name FROM skill_usage WHERE uses > 0 ORDER BY uses DESC, name LIMIT ?", (NAMED * 2,)
            ).fetchall()
    except sqlite3.Error:  # an older or damaged state.db: the index simply names no most-used skills
        return []
    return [r[0] for r in rows]
