"""The approval queue of `grove serve`: a turn's Approver (called in the turn's worker thread) files a question
and waits; the dashboard lists `pending()` and `answer()`s them. No answer within the request's timeout = deny."""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field

from grove.security.approval.base import ANSWERS, ApprovalRequest, Approver
from grove.security.secrets.redact import redact


@dataclass(frozen=True)
class PendingApproval:
    """One open question as the dashboard shows it (the command is redacted: it is shown in a browser)."""

    id: str
    label: str  # who asks: the conversation / session the turn belongs to
    command: str
    reasons: str
    session_id: str | None
    asked_at: float  # time.time()
    deadline: float  # time.time() after which it counts as denied
    owner: str | None = None  # the client key whose turn asks: only it (or an admin) sees and answers it


@dataclass
class _Slot:
    info: PendingApproval
    done: threading.Event = field(default_factory=threading.Event)
    answer: str | None = None


class ApprovalQueue:
    """Open questions by id; each is answered at most once, and only with one of ANSWERS."""

    def __init__(self, max_pending: int = 100) -> None:
        self.max_pending = max_pending  # a flood of questions cannot grow memory without bound
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.version = 0  # bumped on every change, so a dashboard can poll cheaply

    def approver(self, label: str, owner: str | None = None) -> Approver:
        """The Approver for one turn: blocks its (worker) thread until answered; None (= deny) on timeout."""

        def approve(request: ApprovalRequest) -> str | None:
            return self.ask(label, request, owner)

        return approve

    def ask(self, label: str, request: ApprovalRequest, owner: str | None = None) -> str | None:
        now = time.time()
        info = PendingApproval(
            id=secrets.token_urlsafe(9),
            label=label,
            command=redact(request.command[:4000]),
            reasons=redact(request.reasons),
            session_id=request.session_id,
            asked_at=now,
            deadline=now + max(0.0, request.timeout),
            owner=owner,
        )
        slot = _Slot(info)
        with self._lock:
            if len(self._slots) >= self.max_pending:
                return None  # too many open questions: deny rather than queue without limit
            self._slots[info.id] = slot
            self._bump()
        try:
            slot.done.wait(max(0.0, request.timeout))
        finally:
            with self._lock:
                self._slots.pop(info.id, None)
                self._bump()
        return slot.answer

    def pending(self, owner: str | None = None, *, everyone: bool = False) -> list[PendingApproval]:
        """Open questions, oldest first: `owner`'s only, or with everyone=True (an admin) all of them."""
        with self._lock:
            # an answered question is no longer open, though its asker may not have taken its slot away yet
            shown = [
                s.info
                for s in self._slots.values()
                if not s.done.is_set() and (everyone or s.info.owner == owner)
            ]
        return sorted(shown, key=lambda p: p.asked_at)

    def answer(self, ident: str, answer: str, owner: str | None = None, *, everyone: bool = False) -> bool:
        """Answers an open question; False when the id is unknown, already answered or timed out, not
        `owner`'s (unless everyone=True, an admin: another key's question is as good as unknown), or the answer is not one
        of ANSWERS (once, session, always, deny)."""
        answer = answer.strip().lower()
        if answer not in ANSWERS:
            return False
        with self._lock:
            slot = self._slots.get(ident)
            if slot is None or slot.done.is_set() or not (everyone or slot.info.owner == owner):
                return False
            slot.answer = answer
            slot.done.set()
            self._bump()
        return True

    def wait_change(self, version: int, timeout: float) -> int:
        """Blocks until the queue's version differs from `version` or the timeout passes; returns the version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version, timeout)
            return self.version

    def _bump(self) -> None:
        # called with the lock held
        self.version += 1
        self._changed.notify_all()
