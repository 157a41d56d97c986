"""Streamed text, released as it comes but never a secret: what could still turn out to be (or name) a secret
is held back until it is settled; everything before it goes out redacted."""

from __future__ import annotations

import re
from collections.abc import Callable

# On a line holding one of these, a later word can make an earlier one a secret (`password is X`, `admin / X`,
# a table's password column, a PEM block, `name: DB_PASS` then `value:`), so the line goes out whole. A superset
# of the words grove.security.secrets.context anchors on, plus the characters its multi-word patterns need.
_LINE_TRIGGERS = re.compile(
    r"pass|pwd|pw|secret|token|key|auth|bearer|cookie|cred|login|sig|hmac|mysql|redis|://|admin|root|session|"
    r"value|machine|-----|[/|]|[^\x00-\x7f]",
    re.I,
)


class Holdback:
    """Feeds `emit` the redacted text that is settled. A line with no word that could name a secret is released
    a word at a time (a secret in a known format or a random token is one word, so it arrives whole); a line that
    has one waits for its end; `flush` releases the rest (the model call ended)."""

    def __init__(self, emit: Callable[[str], None], redact: Callable[[str], str]) -> None:
        self.emit = emit
        self.redact = redact
        self._pending = ""  # text not yet released: the open line's held part

    def feed(self, delta: str) -> None:
        self._pending += delta
        lines, newline, tail = self._pending.rpartition("\n")
        out = lines + newline
        if tail and not _LINE_TRIGGERS.search(tail):
            cut = max(tail.rfind(" "), tail.rfind("\t")) + 1  # the last word may be the start of a secret
            out, tail = out + tail[:cut], tail[cut:]
        self._pending = tail
        if out:
            self.emit(self.redact(out))

    def flush(self) -> None:
        if self._pending:
            self.emit(self.redact(self._pending))
            self._pending = ""
