"""markdown_hits skips the `$ ` prompt and bare-command line patterns on texts their gates rule out: the gates
hold wherever a pattern matches, and markdown_hits finds the same hits as the ungated loop."""

from __future__ import annotations

import random
import re

import pytest

from grove.security.skill_scan import markdown_commands as sm

_PARTS = ["$ ", "$", "sudo ", "curl x", "git clone y", "echo hi", "find .", "catalog", "  ", "\t", "\n", "\n\n",
          "# ", "text ", "\u00a0", "\r", "rm -rf /", "shell"]  # fmt: skip


def _texts(n: int) -> list[str]:
    rng = random.Random(42)
    return ["".join(rng.choice(_PARTS) for _ in range(rng.randrange(1, 12))) for _ in range(n)]


def test_gates_hold_wherever_a_line_pattern_matches() -> None:
    matched = 0
    for text in _texts(40000):
        for pattern, (at_start, after_newline) in sm._LINE_GATES.items():
            if pattern.search(text):
                matched += 1
                assert at_start.match(text) or after_newline.search(text), (pattern.pattern[:20], text)
    assert matched > 1000


def test_markdown_hits_are_those_of_the_ungated_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(3000)
    gated = [sm.markdown_hits(t) for t in texts]
    always = re.compile("")  # matches every text: nothing skipped
    monkeypatch.setattr(sm, "_LINE_GATES", {p: (always, always) for p in sm._LINE_GATES})
    assert [sm.markdown_hits(t) for t in texts] == gated
