"""search_files' pattern: RE2 (linear time, no catastrophic backtracking) where google-re2 is installed, else
Python's re with each file's search run in a worker that is stopped after a time budget."""

from __future__ import annotations

import re
from typing import Any, Protocol

from grove.tools.registry import ToolError

SECONDS_PER_FILE = 10.0


class Pattern(Protocol):
    def search(self, text: str) -> Any: ...


def compile_pattern(pattern: str) -> Pattern:
    """A compiled search pattern, or a ToolError saying what to change."""
    try:
        python_rx = re.compile(pattern)
    except re.error as e:
        raise ToolError(f"invalid regular expression: {e}") from e
    try:
        import re2
    except ImportError:
        return _Bounded(python_rx)
    opts = re2.Options()
    opts.log_errors = False
    try:
        return re2.compile(pattern, opts)
    except re2.error as e:
        detail = e.args[0].decode(errors="replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        raise ToolError(
            f"search_files cannot use this pattern ({detail}): backreferences (\\1) and lookarounds "
            "((?=...), (?<=...)) are not supported; search for the plain text or a simpler expression"
        ) from None


class _Bounded:
    """Python's re, where a pattern can backtrack for hours: a file whose search runs past the budget is an error."""

    def __init__(self, rx: re.Pattern[str]) -> None:
        self.rx = rx

    def search(self, text: str) -> Any:
        return self.rx.search(text)

    def lines_matching(self, lines: list[str]) -> list[int]:
        import multiprocessing  # only a search with a backtracking pattern pays for it

        ctx = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        )
        with ctx.Pool(1) as pool:
            job = pool.apply_async(_matching, (self.rx.pattern, lines))
            try:
                return job.get(SECONDS_PER_FILE)
            except multiprocessing.TimeoutError:
                pool.terminate()
                raise ToolError(
                    f"the pattern took over {SECONDS_PER_FILE:.0f} s on one file (nested repeats like (a+)+ "
                    "backtrack without end); search for the plain text or a simpler expression"
                ) from None


def _matching(pattern: str, lines: list[str]) -> list[int]:
    rx = re.compile(pattern)
    return [i for i, line in enumerate(lines) if rx.search(line)]
