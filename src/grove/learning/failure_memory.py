"""A session's failure memory around its turns: the first turn's task gets the notes of similar tasks that failed
before; after each turn its worked-around tool errors are noted; a user's correction notes the answer it
corrects. Off where learning is: `learning.review: false`, or a session opened with review off."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.learning.failure_capture import from_correction, from_turn
from grove.learning.failure_notes import FailureNote, hint, similar_notes


@dataclass
class FailureMemory:
    home: Path
    session_id: str
    enabled: bool = True
    task_text: str | None = (
        None  # what the task is, when the first message wraps it (a kanban worker's prompt)
    )
    turns: int = 0  # user turns so far (a resumed session starts past its first: no notes then)
    shown: list[FailureNote] = field(default_factory=list)  # the notes the first turn was given
    recorded: list[FailureNote] = field(default_factory=list)
    _last_task: str = ""
    _last_answer: str = ""

    def before(self, text: str) -> str:
        """The user's text as the agent gets it: on the first turn, with the similar tasks' failure notes."""
        if not self.enabled:
            return text
        note = from_correction(self.home, self._last_task, self._last_answer, text, self.session_id)
        if note is not None:
            self.recorded.append(note)
        self._last_task = self.task_text if (self.turns == 0 and self.task_text) else text
        self.turns += 1
        if self.turns > 1:
            return text
        self.shown = similar_notes(self.home, self._last_task)
        block = hint(self.shown)
        return f"{text}\n\n{block}" if block else text

    def after(self, turn: Any) -> None:
        if not self.enabled:
            return
        self.recorded += from_turn(self.home, self._last_task, turn, self.session_id)
        self._last_answer = str(getattr(turn, "answer", "") or "")
