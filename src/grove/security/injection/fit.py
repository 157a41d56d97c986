"""Fits the injection scanner's weights (a small logistic combination of signals) on grove's OWN written corpora,
never on a public evaluation corpus, and writes them to injection/weights.py: `python -m grove.security.injection.fit`.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from grove.security.injection.signals import gather

REPO = Path(__file__).resolve().parents[4]
# Only the tuning files: every *_heldout* file stays out so that it measures what the weights never saw.
TRAIN_ATTACKS = [
    "tests/security/corpora/injections.txt",
    "tests/security/corpora/injections_signals.txt",
    "tests/security/redteam/injections_attacks.txt",
]
TRAIN_BENIGN = [
    "tests/security/corpora/benign_instructions.txt",
    "tests/security/corpora/benign_instructions_signals.txt",
    "tests/security/redteam/injections_benign.txt",
]
L2 = 0.003
STEPS = 6000
RATE = 1.0
# Parts of evidence, not evidence: a URL, a word like "password", "send", "you" or a reply format ("respond only
# with JSON"), a role ("imagine you are a historian") or a name ("Claude:") is in most honest instructions.
# They count only inside the composites of injection.signals (send + secret + way out, addressee + ...).
COMPONENTS = {"channel", "secret_object", "send", "you", "force_reply", "roleplay", "vocative"}


def _lines(rel: str) -> list[str]:
    text = (REPO / rel).read_text(encoding="utf-8")
    return [ln.replace("\\n", "\n") for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def features(text: str) -> set[str]:
    ev = gather(text)
    out = set(ev.whole)
    for w in ev.windows:
        out |= w.signals
    return out - COMPONENTS


def fit(samples: list[tuple[set[str], int]]) -> tuple[float, dict[str, float]]:
    """Plain gradient descent on the L2-penalised log loss; signal weights are kept >= 0 so that adding text
    can never lower a score (an attacker cannot dilute an injection with harmless words)."""
    names = sorted({f for feats, _ in samples for f in feats})
    w = dict.fromkeys(names, 0.0)
    b = 0.0
    n = len(samples)
    for _ in range(STEPS):
        gb = 0.0
        gw = dict.fromkeys(names, 0.0)
        for feats, y in samples:
            z = b + sum(w[f] for f in feats)
            p = 1 / (1 + math.exp(-z))
            gb += p - y
            for f in feats:
                gw[f] += p - y
        b -= RATE * gb / n
        for f in names:
            w[f] = max(0.0, w[f] - RATE * (gw[f] / n + L2 * w[f]))
    return b, {f: round(v, 3) for f, v in sorted(w.items()) if v > 0.001}


def main() -> None:
    samples = [(features(t), 1) for rel in TRAIN_ATTACKS for t in _lines(rel)]
    samples += [(features(t), 0) for rel in TRAIN_BENIGN for t in _lines(rel)]
    bias, weights = fit(samples)
    body = "\n".join(f"    {k!r}: {v}," for k, v in weights.items())
    out = Path(__file__).with_name("weights.py")
    out.write_text(
        '"""Weights of the injection score (logistic), written by `python -m grove.security.injection.fit` from\n'
        'grove\'s own corpora only (the tuning files; no held-out file, no public corpus)."""\n\n'
        f"BIAS = {round(bias, 3)}\nWEIGHTS: dict[str, float] = {{\n{body}\n}}\n",
        encoding="utf-8",
    )
    print(f"{len(samples)} samples, {len(weights)} weights, bias {bias:.2f} -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
