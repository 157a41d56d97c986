"""Approvals as buttons: the runtime's Approver (called in a turn's thread) posts a question with Allow once /
Allow for session / Deny to the chat and waits for a press; no answer within the request's timeout is a deny."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from grove.gateway.adapter import Choice, Pressed
from grove.security.approval.base import ApprovalRequest, Approver
from grove.security.secrets.redact import redact

PREFIX = "grove"
CHOICES = (("Allow once", "once"), ("Allow for session", "session"), ("Deny", "deny"))
SHOWN = {"once": "Allowed once.", "session": "Allowed for this session.", "deny": "Denied."}

# (chat id, question text, buttons) -> posted; run on the gateway's event loop
Ask = Callable[[str, str, list[Choice]], Coroutine[Any, Any, None]]  # run on the gateway's loop from a thread


@dataclass
class Pending:
    chat_id: str
    user_id: str  # whose turn asked: only that account answers (each user has their own approvals)
    done: threading.Event = field(default_factory=threading.Event)
    answer: str | None = None


class ApprovalBox:
    """Open questions by id. Only a press from the chat that was asked answers one, and only once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, ask: Ask, buttons: bool = True) -> None:
        self.loop = loop
        self.ask = ask
        self.buttons = buttons
        self.pending: dict[str, Pending] = {}
        self.lock = threading.Lock()

    def approver(self, chat_id: str, user_id: str, notify: Callable[[str], None]) -> Approver:
        def approve(request: ApprovalRequest) -> str | None:
            return self.wait(chat_id, user_id, request, notify)

        return approve

    def wait(
        self, chat_id: str, user_id: str, request: ApprovalRequest, notify: Callable[[str], None]
    ) -> str | None:
        """Blocks the turn's thread until answered; None (= deny) on timeout or when the question cannot go out."""
        ident = secrets.token_hex(4)
        entry = Pending(chat_id, user_id)
        with self.lock:
            self.pending[ident] = entry
        # the question leaves the machine for a chat service: secrets in the command are masked first
        text = redact(
            f"grove asks to run:\n{request.command[:1500]}\n\nWhy: {request.reasons}\n"
            f"(no answer in {request.timeout:.0f} s = deny)"
        )
        choices = [Choice(label, f"{PREFIX}:{ident}:{answer}") for label, answer in CHOICES]
        if not self.buttons:  # a platform without buttons: the user types the answer
            text += f"\n\nReply once, session or deny (or {PREFIX}:{ident}:once, ...:session, ...:deny)"
        try:
            asyncio.run_coroutine_threadsafe(self.ask(chat_id, text, choices), self.loop).result(timeout=60)
            if not entry.done.wait(request.timeout):
                notify(f"No answer in {request.timeout:.0f} s: denied.")
        except Exception as exc:  # the question could not be posted: nobody can answer, so deny
            notify(f"Could not ask for approval ({type(exc).__name__}): denied.")
        finally:
            with self.lock:
                self.pending.pop(ident, None)
        return entry.answer

    def press(self, chat_id: str, user_id: str, data: str) -> Pressed:
        """A button press (or a typed reply code); returns what to show for it. The wrong chat or user, unknown
        or answered questions change nothing."""
        prefix, _, rest = data.partition(":")
        ident, _, answer = rest.partition(":")
        if prefix != PREFIX or answer not in {a for _, a in CHOICES}:
            return Pressed("Unknown button.", False)
        with self.lock:
            entry = self.pending.get(ident)
            if entry is None or entry.done.is_set():
                return Pressed("This question is no longer open.", False)
            if entry.chat_id != chat_id:
                return Pressed("This question belongs to another chat.", False)
            if entry.user_id != user_id:
                return Pressed("This question belongs to another user.", False)
            entry.answer = answer
            entry.done.set()
        return Pressed(SHOWN[answer], True)

    def typed(self, chat_id: str, user_id: str, text: str) -> Pressed | None:
        """A typed answer: a full reply code, or once / session / deny when this user has exactly one open
        question in this chat. None when the text is not an answer (it is a message then)."""
        word = text.strip().strip("'\"`.!").lower()
        if word.startswith(f"{PREFIX}:"):
            return self.press(chat_id, user_id, word)
        answer = TYPED.get(word)
        if answer is None:
            return None
        with self.lock:
            mine = [i for i, p in self.pending.items() if (p.chat_id, p.user_id) == (chat_id, user_id)]
        if len(mine) != 1:
            return None
        return self.press(chat_id, user_id, f"{PREFIX}:{mine[0]}:{answer}")


TYPED = {"once": "once", "yes": "once", "allow": "once", "session": "session", "deny": "deny", "no": "deny"}
