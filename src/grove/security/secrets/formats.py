"""Secrets recognised by their format alone: provider keys and tokens with a fixed prefix, JWTs, PEM
private key
blocks. Every pattern starts with a literal, so one scan for the prefixes finds them all in linear time."""

from __future__ import annotations

import re
from collections.abc import Iterator

from grove.lazy_regex import later

# (literal prefix, the rest of the token). A prefix that is also a word is checked for a word boundary
# before it.
_FORMATS: list[tuple[str, str]] = [
    ("sk-ant-", r"(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}"),  # Anthropic
    ("sk-or-v1-", r"[a-f0-9]{32,}"),  # OpenRouter
    ("sk-", r"(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"),  # OpenAI project/service keys
    ("sk-", r"[A-Za-z0-9_-]{32,}"),  # OpenAI-style and compatible providers (DeepSeek, Moonshot...)
    ("ghp_", r"[A-Za-z0-9]{36,}"),  # GitHub
    ("gho_", r"[A-Za-z0-9]{36,}"),
    ("ghu_", r"[A-Za-z0-9]{36,}"),
    ("ghs_", r"[A-Za-z0-9]{36,}"),
    ("ghr_", r"[A-Za-z0-9]{36,}"),
    ("github_pat_", r"[A-Za-z0-9_]{22,}"),
    ("glpat-", r"[A-Za-z0-9_-]{20,}"),  # GitLab
    ("gldt-", r"[A-Za-z0-9_-]{20,}"),
    ("glrt-", r"[A-Za-z0-9_-]{20,}"),
    ("xox", r"[abposre]-[A-Za-z0-9-]{10,}"),  # Slack
    ("xapp-", r"\d-[A-Z0-9]+-\d+-[a-f0-9]{20,}"),
    ("https://hooks.slack.com/services/", r"T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
    ("https://discord", r"(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}"),
    ("AKIA", r"[A-Z0-9]{16}\b"),  # AWS key ids
    ("ASIA", r"[A-Z0-9]{16}\b"),
    ("ABIA", r"[A-Z0-9]{16}\b"),
    ("ACCA", r"[A-Z0-9]{16}\b"),
    ("AGPA", r"[A-Z0-9]{16}\b"),
    ("AIDA", r"[A-Z0-9]{16}\b"),
    ("AROA", r"[A-Z0-9]{16}\b"),
    ("ANPA", r"[A-Z0-9]{16}\b"),
    ("AIza", r"[0-9A-Za-z_-]{35}\b"),  # Google API key
    ("ya29.", r"[0-9A-Za-z_-]{20,}"),  # Google OAuth access token
    ("GOCSPX-", r"[A-Za-z0-9_-]{20,}"),  # Google OAuth client secret
    ("sk_live_", r"[0-9a-zA-Z]{16,}"),  # Stripe secret / restricted / publishable live keys
    ("sk_test_", r"[0-9a-zA-Z]{16,}"),
    ("rk_live_", r"[0-9a-zA-Z]{16,}"),
    ("rk_test_", r"[0-9a-zA-Z]{16,}"),
    ("pk_live_", r"[0-9a-zA-Z]{16,}"),
    ("whsec_", r"[A-Za-z0-9]{24,}"),  # Stripe webhook secret
    ("SG.", r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}"),  # SendGrid
    ("hf_", r"[A-Za-z0-9]{30,}"),  # Hugging Face
    ("npm_", r"[A-Za-z0-9]{36}\b"),  # npm
    ("pypi-AgE", r"[A-Za-z0-9_-]{50,}"),  # PyPI
    ("dckr_pat_", r"[A-Za-z0-9_-]{20,}"),  # Docker Hub
    ("dop_v1_", r"[a-f0-9]{64}\b"),  # DigitalOcean
    ("shpat_", r"[a-fA-F0-9]{32}\b"),  # Shopify
    ("shpss_", r"[a-fA-F0-9]{32}\b"),
    ("lin_api_", r"[A-Za-z0-9]{32,}"),  # Linear
    ("secret_", r"[A-Za-z0-9]{43,}\b"),  # Notion
    ("ntn_", r"[A-Za-z0-9]{43,}\b"),
    ("gsk_", r"[A-Za-z0-9]{48,}"),  # Groq
    ("r8_", r"[A-Za-z0-9]{37,}"),  # Replicate
    ("pplx-", r"[A-Za-z0-9]{40,}"),  # Perplexity
    ("xai-", r"[A-Za-z0-9]{60,}"),  # xAI
    ("AKC", r"[a-zA-Z0-9]{10,}"),  # JFrog
    ("dp.", r"(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,}"),  # Doppler
    ("SK", r"[0-9a-f]{32}\b"),  # Twilio API key and account id
    ("AC", r"[0-9a-f]{32}\b"),
    ("key-", r"[0-9a-f]{32}\b"),  # Mailgun
    ("eyJ", r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # JWT
    ("ATATT3", r"[A-Za-z0-9_=-]{40,}"),  # Atlassian
    ("glsa_", r"[A-Za-z0-9]{32}_[a-f0-9]{8}\b"),  # Grafana service account
    ("hvs.", r"[A-Za-z0-9_-]{24,}"),  # HashiCorp Vault
    ("figd_", r"[A-Za-z0-9_-]{40,}"),  # Figma
    ("sq0atp-", r"[A-Za-z0-9_-]{22,}"),  # Square
    ("sq0csp-", r"[A-Za-z0-9_-]{22,}"),
    ("EAA", r"[A-Za-z0-9]{80,}"),  # Facebook/Meta
    ("AccountKey=", r"[A-Za-z0-9+/=]{40,}"),  # Azure storage connection string
    ("SharedAccessKey=", r"[A-Za-z0-9+/=]{20,}"),
    ("SharedAccessSignature=", r"[^\s;\"']{20,}"),
]
# Keys printed in documentation: a value that is only a prefix and x's or dots is a placeholder.
_FILLER = later(r"^(?:[xX*.]+|(?:X{4,}|x{4,}).*|.*(?:EXAMPLE|example|XXXX|xxxx|\.\.\.).*)$")


def _compile() -> dict[str, list[re.Pattern[str]]]:
    by_prefix: dict[str, list[re.Pattern[str]]] = {}
    for prefix, rest in _FORMATS:
        by_prefix.setdefault(prefix, []).append(later(re.escape(prefix) + rest))
    return by_prefix


_BY_PREFIX = _compile()
# Longest first, so `sk-ant-` is tried before `sk-`; a failed long prefix falls back to the shorter ones.
# Keyed by
# their first two characters so each run of token characters is checked against a handful.
_PREFIXES = tuple(sorted((p for p in _BY_PREFIX if p[-1] not in ".="), key=len, reverse=True))
_BY_HEAD: dict[str, tuple[str, ...]] = {}
for _p in _PREFIXES:
    _BY_HEAD[_p[:2]] = (*_BY_HEAD.get(_p[:2], ()), _p)
# Formats with a dot or `=` inside do not start a run of token characters: each is searched for on its own,
# only when its literal occurs.
_DOTTED = [(p, pats) for p, pats in _BY_PREFIX.items() if p[-1] in ".=" or p.startswith("https://")]
_TWILIO_PAIR = later(r"AC[0-9a-f]{32}[\"']?\s*[,:]\s*[\"']?([0-9a-f]{32})\b")
# A private key block up to its END line, or, when that is missing, as far as its body runs (base64, headers
# like `Proc-Type: 4,ENCRYPTED`, JSON's `\\n`). Bounded, so a page of BEGIN lines stays linear.
_PEM = later(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
    r"(?:(?P<body>[A-Za-z0-9+/=\s\\:,.-]{0,16384}?)-----END \1-----"
    r"|(?P<open>(?:(?:\r?\n|\\n)[ \t]*(?:[A-Za-z0-9+/=]{4,100}|(?:Proc-Type|DEK-Info):[^\n\\]{0,100})"
    r"(?=\r?\n|\\n|$|[\"'`])){1,400}))"
)
_BODY_CHARS = later(r"[A-Za-z0-9+/]")


def _match(text: str, start: int, prefix: str) -> int:
    """End of the token of this prefix's format at `start`, or -1."""
    for pattern in _BY_PREFIX[prefix]:
        hit = pattern.match(text, start)
        if hit and not _FILLER.match(hit.group(0)[len(prefix) :]):
            return hit.end()
    return -1


def format_spans(text: str, runs: list[re.Match[str]]) -> Iterator[tuple[int, int]]:
    """(start, end) of every token in a known format. `runs` are the text's runs of token characters."""
    for run in runs:
        token = run.group(0)
        if token[0] in "/+":
            token = token.lstrip("/+")  # `https://ghp_...@github.com`
        heads = _BY_HEAD.get(token[:2])
        if heads is None:
            continue
        start = run.start() + (len(run.group(0)) - len(token))
        for prefix in heads:
            if token.startswith(prefix):
                end = _match(text, start, prefix)
                if end > 0:
                    yield start, end
                    break
    for prefix, patterns in _DOTTED:
        if prefix not in text:
            continue
        for pattern in patterns:
            for hit in pattern.finditer(text):
                if not _FILLER.match(hit.group(0)[len(prefix) :]):
                    yield hit.span()
    if "AC" in text:
        for hit in _TWILIO_PAIR.finditer(text):
            yield hit.span(1)


def pem_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, replacement) of every PEM private key block, header and footer kept."""
    if "-----BEGIN" not in text:
        return
    for m in _PEM.finditer(text):
        label = m.group(1)
        body = m.group("body") if m.group("body") is not None else m.group("open")
        if body.strip() == "[redacted]" or len(_BODY_CHARS.findall(body)) < 8:
            continue  # already redacted, or a bare marker (`_START = b"-----BEGIN ... KEY-----"`)
        yield m.start(), m.end(), f"-----BEGIN {label}----- [redacted] -----END {label}-----"
