"""Failure memory: a failed approach (a failed verifier, a tool error the agent then worked around, a user's
correction) kept with its task, and found again when a similar task starts (ranked by the skills' own BM25F
search, kept when the tasks' words overlap clearly and they name the same files), to be shown to the agent
before it repeats the mistake.

One JSON file a note under $GROVE_HOME/failures/ (atomic writes; delete a file to forget a note)."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from grove.atomic_files import atomic_write_text
from grove.lazy_regex import later
from grove.learning.overlap import text_vector
from grove.security.secrets.redact import redact

Kind = Literal["verifier", "tool_error", "correction"]
MIN_SIMILARITY = (
    0.5  # cosine of the two tasks' stemmed words: below this another task only shares a few words
)
MAX_NOTES = 2  # shown at a task's start; more would crowd out the task itself
FIELD_CHARS = 400


@dataclass
class FailureNote:
    id: str
    kind: Kind
    task: str  # what was asked
    tried: str  # the approach that failed (a call and its arguments, or the answer)
    failed: str  # what said so: the verifier, the tool's error, the user's words
    worked: str = ""  # what got past it, when the session found out
    session_id: str = ""
    created_at: float = 0.0


def notes_dir(home: Path) -> Path:
    return home / "failures"


def _clip(text: str) -> str:
    text = redact(" ".join(str(text).split()))
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 1] + "…"


def record(
    home: Path, kind: Kind, task: str, tried: str, failed: str, worked: str = "", session_id: str = ""
) -> FailureNote | None:
    """Keep a note (redacted, clipped); the same failure of the same task is kept once. None: nothing to keep."""
    if not task.strip() or not failed.strip():
        return None
    task, tried, failed, worked = _clip(task), _clip(tried), _clip(failed), _clip(worked)
    digest = hashlib.sha256(json.dumps([kind, task, tried, failed]).encode()).hexdigest()[:16]
    note = FailureNote(digest, kind, task, tried, failed, worked, session_id, time.time())
    path = notes_dir(home) / f"{digest}.json"
    if path.exists():
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(asdict(note), ensure_ascii=False, indent=1))
    return note


def load_notes(home: Path) -> list[FailureNote]:
    out = []
    folder = notes_dir(home)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(FailureNote(**json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, TypeError):
            continue  # a hand-edited or half-copied note is skipped, never fatal
    return out


_FILE = later(r"[\w./-]*\w\.[A-Za-z][\w]{0,5}\b")


def files_named(text: str) -> set[str]:
    """File names a task mentions (`sales.csv`, `src/app.py`): a failure on one file is about that file."""
    return {m.rsplit("/", 1)[-1].lower() for m in _FILE.findall(text)}


def similar(task: str, noted: str) -> bool:
    """Two tasks are alike: their words overlap clearly, and when both name files, they share one (found on the
    failure-memory benchmark: 'Sum the price column of prices.csv' is not 'Sum the amount column of sales.csv')."""
    if _cosine(task, noted) < MIN_SIMILARITY:
        return False
    mine, theirs = files_named(task), files_named(noted)
    return not (mine and theirs) or bool(mine & theirs)


def _cosine(a: str, b: str) -> float:
    va, vb = text_vector("", "", a), text_vector("", "", b)
    dot = sum(va[t] * vb[t] for t in va.keys() & vb.keys())
    norm = (sum(v * v for v in va.values()) * sum(v * v for v in vb.values())) ** 0.5
    return dot / norm if norm else 0.0


def similar_notes(home: Path, task: str, limit: int = MAX_NOTES) -> list[FailureNote]:
    """Notes of tasks like `task`: ranked by the skill search (BM25F over the note as a skill: its task as the
    description, its approach and failure as the body), kept when the two tasks' words overlap clearly."""
    notes = load_notes(home)
    if not notes or not task.strip():
        return []
    from grove.skills.search import SkillSearchIndex  # only with notes to rank: most homes have none
    from grove.skills.skill import Skill

    by_name = {f"failure-{n.id}": n for n in notes}
    pseudo = [
        Skill(
            name, n.task, notes_dir(home) / name, "home", {}, f"{n.tried}\n{n.failed}\n{n.worked}", "failures"
        )
        for name, n in by_name.items()
    ]
    hits = SkillSearchIndex(pseudo).search(task, limit=len(pseudo))
    close = [by_name[h.name] for h in hits if similar(task, by_name[h.name].task)]
    return close[:limit]


def hint(notes: list[FailureNote]) -> str:
    """The block shown with the task: what failed before on similar tasks, and what worked."""
    if not notes:
        return ""
    lines = ["[grove] Earlier attempts at similar tasks failed; do not repeat them:"]
    for n in notes:
        line = f"- tried: {n.tried} -> failed: {n.failed}"
        if n.worked:
            line += f" -> what worked: {n.worked}"
        lines.append(line)
    return "\n".join(lines)
