"""A skill as a GEPA candidate: the frozen frontmatter head, and the body split at `## ` headings, byte-exactly.

Component keys carry a two-digit position ("00 preamble", "01 ## Rules") so joining sorts them back into place
whatever order a dict arrives in. An empty component is a dropped section.
"""

from __future__ import annotations

import itertools
import re

PREAMBLE = "preamble"
_HEADING = re.compile(r"^## ", re.MULTILINE)


def split_skill_md(text: str) -> tuple[str, str]:
    """(head, body): head is everything up to and including the closing `---` line, byte for byte."""
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines) and not lines[i].strip().lstrip("\ufeff"):
        i += 1
    if i >= len(lines) or lines[i].strip().lstrip("\ufeff") != "---":
        raise ValueError("SKILL.md must start with a '---' line opening the YAML frontmatter")
    for end in range(i + 1, len(lines)):
        if lines[end].rstrip() == "---":
            return "".join(lines[: end + 1]), "".join(lines[end + 1 :])
    raise ValueError("the YAML frontmatter is never closed by a '---' line")


def split_body(body: str) -> dict[str, str]:
    """Body -> ordered components; "".join(values) == body. Headings inside fenced code are not split points."""
    starts = [0]
    fenced = False
    offset = 0
    for line in body.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## ") and offset > 0:
            starts.append(offset)
        offset += len(line)
    starts.append(len(body))
    parts: dict[str, str] = {}
    for n, (a, b) in enumerate(itertools.pairwise(starts)):
        chunk = body[a:b]
        title = chunk.splitlines()[0].strip() if chunk.startswith("## ") else PREAMBLE
        parts[f"{n:02d} {title}"] = chunk
    return parts


def join_body(components: dict[str, str]) -> str:
    return "".join(components[k] for k in sorted(components))


def heading_of(key: str) -> str:
    """The heading line a component must start with ("" for the preamble)."""
    title = key.split(" ", 1)[1]
    return "" if title == PREAMBLE else title


def to_candidate(text: str) -> tuple[str, dict[str, str]]:
    head, body = split_skill_md(text)
    return head, split_body(body)


def from_candidate(head: str, components: dict[str, str]) -> str:
    return head + join_body(components)


def candidate_id(components: dict[str, str]) -> str:
    import hashlib

    return hashlib.sha256(join_body(components).encode("utf-8")).hexdigest()[:12]


def extra_headings(key: str, text: str) -> list[str]:
    """`## ` headings in a component other than its own first line (a mutation must not add sections)."""
    found = [m.start() for m in _HEADING.finditer(text)]
    own = 0 if heading_of(key) and text.startswith("## ") else None
    return [text[i : text.find("\n", i) if "\n" in text[i:] else len(text)] for i in found if i != own]
