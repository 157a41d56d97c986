"""What an import says: one verdict per SKILL.md found, with its reason and a way forward; a summary; a report file."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path

from grove.atomic_files import atomic_write_text

# every SKILL.md found ends in exactly one of these
STATUSES = ("imported", "duplicate", "invalid", "refused", "quarantined", "over-limit", "hidden")


@dataclass
class ImportOutcome:
    source: Path
    name: str  # the name it is imported under (or would have been)
    status: str  # one of STATUSES
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    fix: str = ""  # a way forward, for anything not imported
    original_name: str = ""  # the name in its SKILL.md, when it differs
    author: str = ""

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(self)}  # flat: no deep copy
        out["source"], out["warnings"] = str(self.source), list(self.warnings)
        return out


def fix_for(status: str, reason: str) -> str:
    if status == "duplicate":
        return (
            "import it under another name with --on-conflict rename (name-<author>), or --on-conflict replace"
        )
    if status == "invalid":
        return "fix the SKILL.md as the reason says (`grove skills validate FOLDER` lists every problem), import again"
    if status == "refused":
        return (
            "dangerous content is never imported: read the reasons, remove it from the skill, import it again"
        )
    if status == "quarantined":
        return "read the reasons; if the skill is fine, import it again with --allow-flagged"
    if status == "hidden":
        return "it sits in a hidden folder; import that folder directly: grove skills import FOLDER"
    if status == "over-limit":
        for setting in ("max_depth", "max_skills", "max_files", "max_file_bytes", "max_skill_bytes"):
            option = "--" + setting.replace("_", "-")
            if f"skills.{setting}," in reason or f"({option})" in reason:
                return (
                    f"raise the limit: import again with a larger {option}, or set skills.{setting}"
                    " in config.yaml"
                )
    return ""


@dataclass
class ImportSummary:
    found: int
    counts: dict[str, int]
    seconds: float
    scan: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        parts = [f"{self.counts.get(s, 0)} {s}" for s in STATUSES if self.counts.get(s) or s == "imported"]
        line = f"found {self.found} SKILL.md: " + ", ".join(parts) + f" ({self.seconds:.1f} s)"
        at_read = self.scan.get("prose_at_read")
        if at_read:  # truthful about what the import's scan left out, and where it runs
            line += (
                f"; {at_read} supporting file(s): their prose is scanned for prompt injection"
                " when read (skill_view), at import only where their code is flagged"
            )
        return line


def summarise(
    outcomes: list[ImportOutcome], seconds: float, scan: dict[str, int] | None = None
) -> ImportSummary:
    counts = Counter(o.status for o in outcomes)
    return ImportSummary(len(outcomes), {s: counts.get(s, 0) for s in STATUSES}, seconds, scan or {})


def write_report(path: Path, outcomes: list[ImportOutcome], summary: ImportSummary) -> None:
    """Every verdict as JSON (atomic): the summary first, then one entry per SKILL.md found, in walk order."""
    data = {
        "summary": {
            "found": summary.found,
            **summary.counts,
            "seconds": round(summary.seconds, 2),
            "scan": summary.scan,
        },
        "skills": [o.as_dict() for o in outcomes],
    }
    atomic_write_text(Path(path), json.dumps(data, ensure_ascii=False, indent=1) + "\n")
