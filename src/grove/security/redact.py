"""Secret redaction for everything shown or stored: provider keys and tokens, secret assignments, URLs with
credentials, private key blocks, and the exact values of this process's secret environment variables."""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(
    r"(?:^|_)(?:API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|PRIVATE_KEY|ACCESS_KEY|AUTH|KEY)(?:$|_)",
    re.I,
)
# Known formats. Order matters little: every match is masked the same way.
TOKEN_PATTERNS = [
    r"sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}",  # Anthropic
    r"sk-or-v1-[a-f0-9]{32,}",  # OpenRouter
    r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}",  # OpenAI project/service keys
    r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}",  # OpenAI legacy
    r"\bsk-[A-Za-z0-9_-]{32,}",  # OpenAI-style and compatible providers (DeepSeek, Moonshot...)
    r"\bgh[pousr]_[A-Za-z0-9]{36,}",  # GitHub
    r"\bgithub_pat_[A-Za-z0-9_]{22,}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",  # GitLab
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack
    r"\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{20,}",
    r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}",
    r"https://discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}",
    r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b",  # AWS key ids
    r"\bAIza[0-9A-Za-z_-]{35}\b",  # Google API key
    r"\bya29\.[0-9A-Za-z_-]{20,}",  # Google OAuth access token
    r"\bGOCSPX-[A-Za-z0-9_-]{20,}",  # Google OAuth client secret
    r"\b(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{16,}",  # Stripe secret / restricted
    r"\bwhsec_[A-Za-z0-9]{24,}",  # Stripe webhook secret
    r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}",  # SendGrid
    r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face
    r"\bnpm_[A-Za-z0-9]{36}\b",  # npm
    r"\bpypi-AgE[A-Za-z0-9_-]{50,}",  # PyPI
    r"\bdop_v1_[a-f0-9]{64}\b",  # DigitalOcean
    r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",  # Shopify
    r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}",  # Linear
    r"\b(?:secret|ntn)_[A-Za-z0-9]{43,}\b",  # Notion
    r"\bgsk_[A-Za-z0-9]{48,}",  # Groq
    r"\br8_[A-Za-z0-9]{37,}",  # Replicate
    r"\bpplx-[A-Za-z0-9]{40,}",  # Perplexity
    r"\bxai-[A-Za-z0-9]{60,}",  # xAI
    r"\bAKC[a-zA-Z0-9]{10,}",  # JFrog
    r"\bdp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,}",  # Doppler
    r"\b(?:SK|AC)[0-9a-f]{32}\b",  # Twilio
    r"\bkey-[0-9a-f]{32}\b",  # Mailgun
    r"\b[0-9a-f]{32}-us\d{1,2}\b",  # Mailchimp
    r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b",  # Telegram bot
    r"\b[MNO][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}",  # Discord bot
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JWT
    r"\bATATT3[A-Za-z0-9_=-]{40,}",  # Atlassian
    r"\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b",  # Grafana service account
    r"\bhvs\.[A-Za-z0-9_-]{24,}",  # HashiCorp Vault
    r"\bfigd_[A-Za-z0-9_-]{40,}",  # Figma
    r"\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,}",  # Square
    r"\bEAA[A-Za-z0-9]{80,}",  # Facebook/Meta
    r"\bAccountKey=[A-Za-z0-9+/=]{40,}",  # Azure storage connection string
    r"\bSharedAccessKey=[A-Za-z0-9+/=]{20,}",
]
_TOKENS = re.compile("|".join(f"(?:{p})" for p in TOKEN_PATTERNS))
_TOKEN_RUN = re.compile(r"[\w\-./:+=]{16,}")
_SECRET_WORD = re.compile(r"key|token|secret|pass|pwd|credential|auth", re.I)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.S
)
_URL_CREDS = re.compile(r"\b([a-z][a-z0-9+.-]{1,20}://)([^\s:/@]+):([^\s@/]+)@", re.I)
_AUTH_HEADER = re.compile(
    r"\b(Authorization|Proxy-Authorization)(\s*[:=]\s*[\"']?)(Bearer|Basic|Token|Bot)\s+([^\s\"']+)", re.I
)
_BEARER = re.compile(r"\b(Bearer)\s+([A-Za-z0-9._~+/-]{20,}=*)")
# KEY=value, "api_key": "value", password: value. The name must end in a secret word (so `max_tokens` is not one).
_ASSIGN = re.compile(
    r"""(?P<name>["']?\b[A-Za-z0-9_.-]*?(?:api[_-]?key|apikey|secret(?:[_-]?key)?|token|password|passwd|pwd|pass|"""
    r"""passphrase|credentials?|private[_-]?key|access[_-]?key(?:[_-]?id)?|client[_-]?secret|auth[_-]?key|"""
    r"""signing[_-]?key|encryption[_-]?key|master[_-]?key|license[_-]?key|session[_-]?key|webhook[_-]?secret|"""
    r"""_key)["']?)(?P<sep>\s*(?:=|:=|:|=>)\s*)(?P<q>["']?)(?P<value>[^\s"',;}{)]{3,})""",
    re.I,
)
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?\w+\}?|<[^>]*>?|\{\{.*|%\(.*|\*+|x{3,}|\.\.\.|…|null|none|nil|true|false|undefined|required|optional|"
    r"changeme|example|your[_-].*|my[_-].*|redacted|\[redacted\]|placeholder|env\(.*|os\.environ.*|process\.env.*|"
    r"getenv.*|secrets?\.\w+.*|\d{1,6}|str|string|int|bool|bytes|any|dict|list)$",
    re.I,
)
# .netrc lines and .NET <add key="ApiKey" value="..."/> settings name the secret apart from its value.
_NETRC = re.compile(r"(\bmachine\s+\S+.*?\bpassword\s+)(\S+)", re.I)
_XML_SETTING = re.compile(
    r"""(key=["'][^"']*(?:key|secret|token|password|pwd)[^"']*["']\s+value=["'])([^"']{4,})""", re.I
)
# Secrets passed as command-line options: --password X, --token=X, docker login -p X, redis-cli -a X, mysql -pX.
_CLI_FLAG = re.compile(
    r"(?P<flag>--(?:password|passwd|token|api-key|apikey|secret|auth-token|access-token|client-secret)[= ]"
    r"|\b(?:docker|podman|nerdctl|helm\s+registry)\s+login\b[^\n]*?\s-p\s|\bredis-cli\b[^\n]*?\s-a\s"
    r"|\bmysql(?:dump|admin)?\b[^\n]*?\s-p(?=\S))(?P<value>[^\s\"']{4,})"
)
# Kubernetes/compose env lists: `- name: DB_PASS` then `value: "..."`.
_ENV_LIST = re.compile(
    r"(name:\s*[\"']?[A-Za-z0-9_]*(?:PASS|SECRET|TOKEN|KEY|PWD)[A-Za-z0-9_]*[\"']?\s*\n\s*value:\s*[\"']?)"
    r"([^\s\"']{4,})"
)
_GENERIC_KEY_NAME = re.compile(r"_key[\"']?$", re.I)


# Names that match the secret patterns but hold ordinary values (PWD is the working directory, not a password).
_NOT_SECRET = frozenset(
    {"PWD", "OLDPWD", "KEYMAP", "XKB_DEFAULT_KEYMAP", "GPG_TTY", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM"}
)


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
    values = {v for k, v in env.items() if is_secret_name(k) and len(v) >= 6 and not _PLACEHOLDER.match(v)}
    return sorted(values, key=len, reverse=True)


def _looks_random(value: str) -> bool:
    """For generic `*_key` names (sort_key, cache_key): only mask values that look like key material."""
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return len(value) >= 16 and has_digit and has_alpha


def _assignment(m: re.Match[str]) -> str:
    value = m.group("value")
    if _PLACEHOLDER.match(value) or "…" in value or value.startswith(("***", "!", "(")) or "(" in value:
        return m.group(0)  # placeholders, YAML tags, code (`token = next(tokens)`)
    if value.isalpha() and value.islower() and len(value) <= 10:
        return m.group(0)  # a plain word (`passwd: files`): prose and config, not key material
    if (
        _GENERIC_KEY_NAME.search(m.group("name"))
        and not re.search(
            r"api|secret|private|access|auth|signing|encryption|master|license|session|client",
            m.group("name"),
            re.I,
        )
        and not _looks_random(value)
    ):
        return m.group(0)
    return f"{m.group('name')}{m.group('sep')}{m.group('q')}{mask(value)}"


def redact(text: str, environ: dict[str, str] | None = None) -> str:
    """The text with every secret it contains masked. Safe to call on anything; idempotent."""
    if not text:
        return text
    for value in env_secrets(environ):
        if value in text:
            text = text.replace(value, mask(value))
    text = _PRIVATE_KEY.sub(
        lambda m: f"-----BEGIN {m.group(1)}----- [redacted] -----END {m.group(1)}-----", text
    )
    text = _URL_CREDS.sub(lambda m: f"{m.group(1)}{m.group(2)}:***@", text)
    text = _AUTH_HEADER.sub(
        lambda m: (
            m.group(0)
            if _PLACEHOLDER.match(m.group(4))
            else f"{m.group(1)}{m.group(2)}{m.group(3)} {mask(m.group(4))}"
        ),
        text,
    )
    text = _CLI_FLAG.sub(lambda m: m.group("flag") + mask(m.group("value")), text)
    text = _ENV_LIST.sub(lambda m: m.group(1) + mask(m.group(2)), text)
    text = _NETRC.sub(lambda m: m.group(1) + mask(m.group(2)), text)
    text = _XML_SETTING.sub(lambda m: m.group(1) + mask(m.group(2)), text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {mask(m.group(2))}", text)
    # Both big patterns only run where they can match: tokens inside long unbroken runs of token characters,
    # assignments on lines that name a secret. That keeps 100 KB of ordinary text cheap.
    text = _TOKEN_RUN.sub(lambda r: _TOKENS.sub(lambda m: mask(m.group(0)), r.group(0)), text)
    return "".join(
        _ASSIGN.sub(_assignment, line) if _SECRET_WORD.search(line) else line
        for line in text.splitlines(keepends=True)
    )
