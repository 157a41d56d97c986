"""The secret red-team corpus (tests/security/redteam/secrets*.jsonl, benign_lookalikes*.jsonl) and what
counts
as a leak or a mangle, shared by tests/security/test_redteam_secrets.py and benchmarks/security_secrets.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

REDTEAM = Path(__file__).parent / "redteam"
# A leak is the whole value left in the output. Multi-line secrets (PEM bodies, wrapped base64) leak when
# any of
# their lines of this length or more is left.
MIN_PART = 8
# The stricter figure: no window this long of the secret may survive (masks keep 4 characters each side).
WINDOW = 8


@dataclass(frozen=True)
class Secret:
    id: str
    kind: str
    context: str
    secret: str
    text: str

    def parts(self) -> list[str]:
        lines = [p for p in self.secret.splitlines() if len(p) >= MIN_PART]
        return lines or [self.secret]

    def leaked(self, redacted: str) -> bool:
        return any(p in redacted for p in self.parts())

    def leaked_window(self, redacted: str) -> bool:
        windows = {p[i : i + WINDOW] for p in self.parts() for i in range(max(1, len(p) - WINDOW + 1))}
        return any(w in redacted and w not in self.context_text() for w in windows)

    def context_text(self) -> str:
        """The text around the secret (a window also found there, like a URL prefix, is not a leak)."""
        out = self.text
        for p in self.parts():
            out = out.replace(p, "\0")
        return out


@dataclass(frozen=True)
class Lookalike:
    id: str
    kind: str
    text: str


def _rows(name: str) -> list[dict[str, str]]:
    text = (REDTEAM / name).read_text(encoding="utf-8")
    return [json.loads(ln) for ln in text.splitlines() if ln.strip()]


# Splits: "dev" (tuned on), "heldout" (written with it, never tuned on), "heldout2" (hand-written after the
# rewrite, measured once, never tuned on).
_SUFFIX = {"dev": "", "heldout": "_heldout", "heldout2": "_heldout2"}


def secrets(heldout: bool = False, split: str = "") -> list[Secret]:
    split = split or ("heldout" if heldout else "dev")
    return [Secret(**r) for r in _rows(f"secrets{_SUFFIX[split]}.jsonl")]


def lookalikes(heldout: bool = False, split: str = "") -> list[Lookalike]:
    split = split or ("heldout" if heldout else "dev")
    return [Lookalike(**r) for r in _rows(f"benign_lookalikes{_SUFFIX[split]}.jsonl")]
