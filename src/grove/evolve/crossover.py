"""Section-wise recombination: a child takes, per section, the version a lineage changed from the common ancestor."""

from __future__ import annotations

from collections.abc import Sequence


def ancestors(parents: Sequence[Sequence[int | None]], idx: int) -> set[int]:
    seen: set[int] = set()
    stack = [idx]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack.extend(p for p in parents[i] if p is not None)
    return seen


def common_ancestor(parents: Sequence[Sequence[int | None]], a: int, b: int) -> int | None:
    """The most recent (highest-index) common ancestor of a and b that is neither of them."""
    shared = (ancestors(parents, a) & ancestors(parents, b)) - {a, b}
    return max(shared) if shared else None


def recombine(ancestor: dict[str, str], a: dict[str, str], b: dict[str, str]) -> dict[str, str] | None:
    """Per section: a's version if a changed it, else b's. None when the child equals a or b, or both changed one
    section differently (a conflict)."""
    child: dict[str, str] = {}
    for key, base in ancestor.items():
        in_a, in_b = a.get(key, base), b.get(key, base)
        if in_a != base and in_b != base and in_a != in_b:
            return None
        child[key] = in_a if in_a != base else in_b
    if child in (a, b):
        return None
    return child


def crossover_pass(
    pool: Sequence[dict[str, str]], parents: Sequence[Sequence[int | None]], front: Sequence[int]
) -> list[tuple[dict[str, str], list[int]]]:
    """Children of every pair of front members with a common ancestor, new texts only, as (child, [a, b])."""
    out: list[tuple[dict[str, str], list[int]]] = []
    seen = [dict(c) for c in pool]
    for a in sorted(front):
        for b in sorted(front):
            if a >= b:
                continue
            anc = common_ancestor(parents, a, b)
            child = recombine(dict(pool[anc]), dict(pool[a]), dict(pool[b])) if anc is not None else None
            if child is None or child in seen:
                continue
            seen.append(child)
            out.append((child, [a, b]))
    return out
