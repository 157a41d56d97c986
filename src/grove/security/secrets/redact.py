"""Secret redaction for everything shown or stored: the values of this process's secret environment
variables, secrets in known formats, secrets named by their context, and unnamed random tokens or base64
blobs that decode to secrets. Every detector reports spans of one text; they are merged and masked in one
pass."""

from __future__ import annotations

import os
import re
import string

from grove.lazy_regex import later
from grove.security.secrets.context import context_spans
from grove.security.secrets.entropy import RUNS, entropy_spans
from grove.security.secrets.formats import format_spans, pem_spans
from grove.security.secrets.values import PLACEHOLDER, password_like

_SECRET_NAME = later(
    r"(?:^|_)(?:API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|PRIVATE_KEY|ACCESS_KEY|AUTH|"
    r"KEY)(?:$|_)",
    re.I,
)
# Names that match the secret patterns but hold ordinary values (PWD is the working directory, not a
# password).
_NOT_SECRET = frozenset(
    {"PWD", "OLDPWD", "KEYMAP", "XKB_DEFAULT_KEYMAP", "GPG_TTY", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM"}
)
# Base64 blobs are decoded and their text redacted in turn; deeper nesting than this is not followed.
_MAX_DEPTH = 2


def mask(value: str) -> str:
    """Short values fully masked; longer ones keep 4 characters each side so you can tell keys apart."""
    if len(value) < 20:
        return "***"
    return f"{value[:4]}…{value[-4:]}"


def is_secret_name(name: str) -> bool:
    """Does an environment variable's name say it holds a secret (OPENAI_API_KEY, DB_PASSWORD, GH_TOKEN)?"""
    return name.upper() not in _NOT_SECRET and _SECRET_NAME.search(name) is not None


def env_secrets(environ: dict[str, str] | None = None) -> list[str]:
    """Values of this process's secret-named variables, longest first (so prefixes do not mask partially)."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if is_secret_name(k) and len(v) >= 6 and not PLACEHOLDER.match(v)}
    return sorted(values, key=len, reverse=True)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _lowered(text: str) -> str:
    """`text` lowercased with every character at the same index (a few non-ASCII letters change length under
    `str.lower`; every word the detectors look for is ASCII)."""
    lower = text.lower()
    if len(lower) != len(text):
        lower = text.replace("\u0130", "I").lower()  # İ is the one letter whose lowercase is two characters
    return lower if len(lower) == len(text) else text.translate(_ASCII_LOWER)


def _spans(text: str, depth: int) -> list[tuple[int, int, str | None]]:
    """Every secret's (start, end, replacement or None for `mask`), from all detectors."""
    lower = _lowered(text)
    runs = list(RUNS.finditer(text))
    spans: list[tuple[int, int, str | None]] = list(pem_spans(text))
    spans += [(a, b, None) for a, b in format_spans(text, runs)]
    spans += [(a, b, None) for a, b in context_spans(text, lower)]
    if depth < _MAX_DEPTH:
        inner = lambda decoded: _redact(decoded, depth + 1)  # noqa: E731
        spans += [(a, b, None) for a, b in entropy_spans(text, lower, runs, inner, password_like)]
    return spans


def _apply(text: str, spans: list[tuple[int, int, str | None]]) -> str:
    """Masked text. Overlapping spans merge; a span inside a wider one (a key inside a PEM block) goes with
    it."""
    spans.sort(key=lambda s: (s[0], -s[1]))
    merged: list[tuple[int, int, str | None]] = []
    for start, end, repl in spans:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            if end > last[1]:
                merged[-1] = (last[0], end, None)
            continue
        merged.append((start, end, repl))
    out: list[str] = []
    pos = 0
    for start, end, repl in merged:
        out.append(text[pos:start])
        out.append(repl if isinstance(repl, str) else mask(text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _redact(text: str, depth: int) -> str:
    spans = _spans(text, depth)
    return _apply(text, spans) if spans else text


def secret_values(text: str) -> list[str]:
    """The secret values `redact` would mask in `text` (longest first): the terminal learns them from the files
    a command names, to mask them in output that prints them bare, without the name that gave them away."""
    values = {text[a:b] for a, b, _ in _spans(text, 0)}
    return sorted((v for v in values if len(v) >= 6), key=len, reverse=True)


def redact(text: str, environ: dict[str, str] | None = None) -> str:
    """The text with every secret it contains masked. Safe to call on anything; idempotent."""
    if not text:
        return text
    for value in env_secrets(environ):
        if value in text:
            text = text.replace(value, mask(value))
    return _redact(text, 0)
