"""What the checker works with: a claim found in an answer, and the verdict on it with the evidence that decided."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Label = Literal["supported", "contradicted", "unverifiable"]
MARKED: frozenset[str] = frozenset({"contradicted", "unverifiable"})
# kinds about a file, and kinds that report an act of the agent's own (rather than a state it asserts)
FILE_KINDS: frozenset[str] = frozenset({"write", "edit", "fix", "read", "delete"})
ACT_KINDS: frozenset[str] = frozenset(
    {"act", "write", "edit", "fix", "delete", "run", "service", "install", "commit", "push"}
)


@dataclass(frozen=True)
class Claim:
    kind: str  # write, edit, fix, read, delete, run, verify, tests_pass, outcome, install, commit, push, skill, ...
    text: str  # the clause of the answer that makes it
    start: int  # its place in the answer (characters)
    end: int
    target: str | None = None  # a path, a skill's name, a command, a package: what the claim is about
    numbers: tuple[int, ...] = ()  # counts the claim states ("all 12 tests pass")
    mood: str = "report"  # report, now, hedged, described, anchored (grove.claims.mood): how it is decided


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    label: Label
    reason: str  # the evidence, in one line: "write_file backup.sh: no such call this turn"

    @property
    def marked(self) -> bool:
        return self.label in MARKED

    def as_dict(self) -> dict[str, Any]:
        c = asdict(self.claim)
        return {
            "claim": c["text"],
            "kind": c["kind"],
            "target": c["target"],
            "verdict": self.label,
            "reason": self.reason,
        }
