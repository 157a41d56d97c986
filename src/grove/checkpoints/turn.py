"""The session's side of checkpoints: one snapshot just before a turn's first workspace change, sealed when the
turn ends. Implements the `WorkspaceCheckpoints` protocol of grove.tools.context, so the loop knows no storage."""

from __future__ import annotations

from collections.abc import Callable

from grove.checkpoints.store import Checkpoint, CheckpointStore


class TurnCheckpoints:
    def __init__(self, store: CheckpointStore, session: str, notify: Callable[[str], None] = lambda _t: None):
        self.store = store
        self.session = session
        self.notify = notify
        self._prompt = ""
        self._current: Checkpoint | None = None
        self._tried = False

    def start_turn(self, prompt: str) -> None:
        self._prompt, self._current, self._tried = prompt, None, False

    def before_change(self) -> None:
        if self._tried:
            return
        self._tried = True
        try:
            self._current = self.store.take(self.session, self._prompt)
        except Exception as e:  # no checkpoint means no undo, and unknown commands stay refused unattended
            self.notify(f"no checkpoint for this turn ({type(e).__name__}: {e}); `grove undo` cannot undo it")

    def end_turn(self) -> None:
        if self._current is not None:
            try:
                self.store.seal(self._current)
            except Exception as e:
                self.notify(f"checkpoint not sealed ({type(e).__name__}: {e})")
        self._current = None

    def ready(self) -> bool:
        """A checkpoint of this turn exists (the approval policy lets unknown commands run only then)."""
        return self._current is not None
