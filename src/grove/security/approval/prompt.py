"""The approval question on a terminal: what is asked, how answers are read, and a timeout that ends the read
itself (a prompt left waiting would steal the user's next line)."""

from __future__ import annotations

import select
import sys
from collections.abc import Callable
from typing import TextIO

from grove.security.approval.base import ApprovalRequest

CHOICES = {"o": "once", "once": "once", "y": "once", "yes": "once", "s": "session", "session": "session",
           "a": "always", "always": "always", "d": "deny", "deny": "deny", "n": "deny", "no": "deny"}  # fmt: skip


def question(request: ApprovalRequest) -> str:
    return (
        f"grove wants to run:\n    {request.command}\n"
        f"flagged: {request.reasons}\n"
        f"allow? [o]nce / this [s]ession / [a]lways ({', '.join(request.patterns)}) / [d]eny "
        f"(no answer in {request.timeout:g}s = deny): "
    )


def parse_answer(text: str | None) -> str | None:
    """One of once/session/always/deny, or None when the answer means nothing (treated as deny)."""
    return CHOICES.get((text or "").strip().lower())


def tty_approver(
    stdin: TextIO | None = None, stdout: TextIO | None = None
) -> Callable[[ApprovalRequest], str | None]:
    """An approver for a plain terminal (POSIX): asks on stdout, waits on stdin with select() up to the timeout."""
    fin, fout = stdin or sys.stdin, stdout or sys.stderr

    def approve(request: ApprovalRequest) -> str | None:
        fout.write(question(request))
        fout.flush()
        ready, _, _ = select.select([fin], [], [], request.timeout)
        if not ready:
            fout.write("\n(no answer: denied)\n")
            return None
        answer = parse_answer(fin.readline())
        if answer is None:
            fout.write("(not understood: denied)\n")
        return answer

    # the terminal it reads: where a question wanting typed answers (an MCP server's elicitation) is asked too
    approve.terminal = (fin, fout)  # pyright: ignore[reportFunctionMemberAccess]  # read back with getattr
    return approve
