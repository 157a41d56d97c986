"""The fact ledger: what the compressed turns said, kept verbatim and rendered within a token budget.

Every user request and constraint, the decisions and findings the agent stated, `KEY = value` lines with where
they came from (the latest value wins, earlier ones noted), definitions and paths. Constraints are never shed;
under budget pressure the oldest findings, then definitions, paths, values, decisions go first, and old
requests shrink to their first sentence (their constraints stay listed).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import PurePosixPath
from typing import Any

from grove.context import facts

REQUEST_CHARS = 600  # a user message longer than this keeps its start and, separately, its constraints
SENTENCE_CHARS = 320
MAX = {
    "decisions": 1000,
    "findings": 1000,
    "values": 2000,
    "paths": 500,
    "definitions": 300,
}  # stored; rendering has a budget
VALUES_PER_RESULT = 40
READ_WORDS = ("read", "view", "cat", "open", "show")


@dataclass
class Ledger:
    requests: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    progress: list[str] = field(default_factory=list)  # other statements (no identifier, number or marker)
    values: list[dict[str, Any]] = field(default_factory=list)  # {source, subject, text, was}, oldest first
    paths: list[str] = field(default_factory=list)
    definitions: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Ledger:
        data = data or {}
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    # -- reading messages -------------------------------------------------------------------------------------

    def add_user(self, text: str) -> None:
        prose = facts.sentences(text)
        lines = text.strip().splitlines()
        if (
            len(lines) > 8
        ):  # a pasted log or file: its start and end say what it is; the values are read below
            text_kept = "\n".join([*lines[:2], f"[… {len(lines) - 5} pasted lines …]", *lines[-3:]])
        else:
            text_kept = text
        request = facts.clip(text_kept, REQUEST_CHARS)
        _add(self.requests, request)
        for s in prose:
            if facts.is_constraint(s):
                _add(self.constraints, facts.clip(s, 2 * SENTENCE_CHARS))
        for p in facts.paths_in(text):
            _add(self.paths, p, MAX["paths"])
        if "\n" in text.strip():  # pasted config or logs carry values too
            self._add_values("user", facts.values_in(text, code=False))

    def add_assistant(self, text: str) -> None:
        for s in facts.sentences(text):
            if facts.is_narration(s):
                continue
            item = facts.clip(s, SENTENCE_CHARS)
            without_paths = facts.PATH.sub("", s)
            specific = facts.has_identifier(without_paths) or facts.has_subject_number(without_paths)
            if _strong_decision(s):
                _add(self.decisions, item, MAX["decisions"])
            elif specific:
                _add(self.findings, item, MAX["findings"])
            elif facts.PATH.search(s) or len(s.split()) >= 4:
                # a plain statement may still be a decision ("the cache is keyed by tenant"): kept, shed first
                _add(self.progress, item, MAX["findings"])
        for p in facts.paths_in(text):
            _add(self.paths, p, MAX["paths"])

    def add_result(self, tool: str, args: dict[str, Any], text: str) -> None:
        path = args.get("path") or args.get("file") or args.get("filename")
        command = args.get("command") or args.get("cmd")
        source = str(path) if isinstance(path, str) and path else facts.clip(str(command or tool), 80)
        code = isinstance(path, str) and PurePosixPath(path).suffix.lstrip(".").lower() in facts.CODE_EXTS
        self._add_values(source, facts.values_in(text, code=code), file=source == path)
        if code:
            names = facts.definitions(text)
            if names:
                self.definitions.pop(source, None)  # the file's latest reading wins
                self.definitions[source] = names[:24]
                while len(self.definitions) > MAX["definitions"]:
                    self.definitions.pop(next(iter(self.definitions)))
        if not any(w in tool for w in READ_WORDS):
            for line in facts.test_summaries(text)[-2:]:
                self._add_values(source, [facts.Value("tests", line, line)])

    def _add_values(self, source: str, found: list[facts.Value], file: bool = False) -> None:
        for v in found[:VALUES_PER_RESULT]:
            old = next((e for e in self.values if e["source"] == source and e["subject"] == v.subject), None)
            if old is not None:
                self.values.remove(old)
                was = list(old.get("was", []))
                if old["text"] != v.text:
                    was = [*was, old["text"]][-3:]
            else:
                was = []
            entry = {"source": source, "subject": v.subject, "text": v.text, "was": was, "file": file}
            self.values.append(entry)
        del self.values[: max(0, len(self.values) - MAX["values"])]

    # -- rendering ----------------------------------------------------------------------------------------------

    def render(self, budget_tokens: int, present: Callable[[str], bool] | None = None) -> str:
        """The ledger as text of at most ~`budget_tokens` (constraints are never cut). `present(item)` says an
        item is already stated verbatim elsewhere (the model summary), so it need not be repeated."""
        seen = present or (lambda _t: False)
        requests = [r for r in self.requests if not seen(r)]
        values = [v for v in self.values if not seen(v["text"])]
        said = set(
            re.findall(r"\w+", " ".join([*self.requests, *self.decisions, *self.findings, *self.progress]))
        )
        # shed first to last: what is cheapest to find again (session search has it all) goes first
        sections: dict[str, list[str]] = {
            "paths": [p for p in self.paths if not seen(p)],
            "definitions": [f"{src}: {', '.join(n)}" for src, n in self.definitions.items()],
            # a file's values can be read again from the workspace; a command's output cannot: files go first,
            # unless the conversation named the value's subject (then it matters to the work)
            "file values": [_item(v) for v in values if v.get("file") and not self._named(v, said)],
            "progress": [p for p in self.progress if not seen(p)],
            "values": [_item(v) for v in values if not v.get("file") or self._named(v, said)],
            "findings": [f for f in self.findings if not seen(f)],
            "decisions": [d for d in self.decisions if not seen(d)],
        }
        size = _chars(requests, self.constraints, sections)
        per_source = Counter(i.split("\x1f", 1)[0] for k in ("file values", "values") for i in sections[k])
        shortened = 0
        while size > budget_tokens * 4:
            tier = next((k for k, items in sections.items() if items), None)
            if tier is not None:
                item = sections[tier].pop(0)
                source, _, text = item.rpartition("\x1f")
                size -= len(text) + 3
                if source:  # a value: its source is written once per group
                    per_source[source] -= 1
                    size -= 0 if per_source[source] else len(source) + 4
            elif shortened < len(requests):
                short = _first_sentence(requests[shortened])
                size -= len(requests[shortened]) - len(short)
                requests[shortened] = short
                shortened += 1
            else:
                break
        listed = "\n".join(requests)
        constraints = [c for c in self.constraints if c not in listed]
        sections["values"] = sections.pop("file values") + sections["values"]
        text = _compose(requests, constraints, sections)
        return text

    @staticmethod
    def _named(v: dict[str, Any], said: set[str]) -> bool:
        subject = str(v["subject"]).split(".")[-1]
        return len(subject) >= 4 and subject in said


STRONG = re.compile(
    r"\b(?:decid\w*|decision|chose|choose|chosen|picked|opted|going with|go with|went with|settl\w+ on|"
    r"agreed|instead of|rather than|in favou?r of|switch(?:ed|ing)? (?:to|from)|pinn?(?:ed|ing)?|from now on|"
    r"going forward|no longer|root cause|caused by|because|the fix|workaround|recommend\w*|won'?t|will not|"
    r"never|always|must|should|do not|don'?t|not \w+\b|only|from now|plan is|approach|we'll|we will|"
    r"i'll keep|kept|keeping|stays?|goes|go through|over \w+)\b",
    re.IGNORECASE,
)


def _strong_decision(sentence: str) -> bool:
    return bool(STRONG.search(sentence)) and (
        facts.has_identifier(sentence) or facts.has_subject_number(sentence) or len(sentence) >= 40
    )


def _add(items: list[str], item: str, limit: int | None = None) -> None:
    if item in items:
        return
    items.append(item)
    if limit is not None and len(items) > limit:
        del items[0]


def _item(v: dict[str, Any]) -> str:
    return f"{v['source']}\x1f{_value_text(v)}"


def _value_text(v: dict[str, Any]) -> str:
    line = str(v["text"])
    if v.get("was"):
        line += f" (earlier: {'; '.join(v['was'])})"
    return line


def _grouped(values: list[str]) -> list[str]:
    """`source\x1fline` items as one line per source, sources in the order of their latest value."""
    groups: dict[str, list[str]] = {}
    for item in values:
        source, text = item.split("\x1f", 1)
        groups.setdefault(source, []).append(text)
        groups[source] = groups.pop(source)  # move to the end: the latest reading orders the groups
    return [f"{source}: {' | '.join(lines)}" for source, lines in groups.items()]


def _first_sentence(text: str) -> str:
    parts = facts.sentences(text)
    return facts.clip(parts[0] if parts else text, 200)


def _chars(requests: list[str], constraints: list[str], sections: dict[str, list[str]]) -> int:
    """The rendered length: values are grouped, so each source is written once."""
    chars = sum(len(r) + 3 for r in requests) + sum(len(c) + 3 for c in constraints) + 240
    sources: set[str] = set()
    for items in sections.values():
        for i in items:
            source, _, text = i.rpartition("\x1f")
            chars += len(text) + 3
            if source and source not in sources:
                sources.add(source)
                chars += len(source) + 4
    return chars


def _compose(requests: list[str], constraints: list[str], sections: dict[str, list[str]]) -> str:
    parts = []
    if requests:
        parts.append("User requests (verbatim, oldest first):\n" + "\n".join(f"- {r}" for r in requests))
    if constraints:
        parts.append(
            "User constraints (verbatim; still in force unless the user lifted them):\n"
            + "\n".join(f"- {c}" for c in constraints)
        )
    titles = {
        "decisions": "Decisions and conclusions stated (verbatim)",
        "findings": "Findings stated (verbatim)",
        "progress": "Other statements (verbatim)",
        "values": "Values seen (source: lines as written, | between them; the latest wins)",
        "definitions": "Definitions seen (file: names)",
        "paths": "Paths mentioned",
    }
    for key in ("decisions", "findings", "progress", "values", "definitions"):
        items = _grouped(sections[key]) if key == "values" else sections[key]
        if items:
            parts.append(f"{titles[key]}:\n" + "\n".join(f"- {i}" for i in items))
    if sections["paths"]:
        parts.append(f"{titles['paths']}: " + ", ".join(sections["paths"]))
    return "\n\n".join(parts)
