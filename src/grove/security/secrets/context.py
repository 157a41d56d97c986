"""Secrets recognised by what names them: `password=` and `api_key:` assignments (env, YAML, JSON, INI, TOML,
XML), credentials in URLs and connection strings, Authorization headers, cookies, command-line flags; and,
through secrets.prose, secrets said in prose. Only lines holding a naming word are examined, so cost stays
linear."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain

from grove.lazy_regex import later
from grove.security.secrets.entropy import wordy
from grove.security.secrets.prose import prose_spans, table_spans
from grove.security.secrets.values import CODE, PLACEHOLDER, TRAILING, looks_random, password_like

# Words that can name a secret on a line; searched in the lowercased text, literal-first so the scan is fast.
_ANCHORS = later(
    r"pass|pwd|pw|secret|token|key|auth|bearer|cookie|cred|login|sig=|hmac|mysql|redis-cli|://|admin|root"
)
# Words for "password" in other languages, looked for only in text that is not all ASCII (as such text is).
_FOREIGN_ANCHORS = later(
    r"wort|contrase|senha|haslo|hasło|salasana|sifre|şifre|adgangskode|lösenord|пароль|密码|密碼|パスワード|비밀번호"
)
_NAME_WORDS = (
    r"api[_-]?key|apikey|secret(?:[_-]?key)?|token|password|passwd|pwd|pw|pass|passphrase|credentials?|"
    r"private[_-]?key|access[_-]?key(?:[_-]?id)?|client[_-]?secret|auth(?:[_-]?(?:key|token))?|"
    r"signature|sig|hmac|"
    r"sessionid|session|signing[_-]?key|encryption[_-]?key|master[_-]?key|license[_-]?key|session[_-]?key|"
    r"webhook[_-]?secret|write[_-]?key|app[_-]?key|[a-z]key|_key"
)
# KEY=value, "api_key": "value", password: value, apiKey => 'value'. Matched from each naming word on a
# line to the end of its word; the name must end in a secret word (so `max_tokens` is not one);
# `${DB_PASSWORD}` is a reference, not a name.
_IN_NAME = later(r"pass|pwd|pw|secret|token|key|auth|cred|sig|hmac|session")
_WORD_REST = later(r"[A-Za-z0-9_.-]*+")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_ASSIGN = later(
    r"""(?P<rest>[A-Za-z0-9_.-]*+["']?)"""
    r"""(?P<sep>[ \t]*(?:=>|:=|=|:(?!:)|->)[ \t]*)"""
    r"""(?:(?P<q>["'`])(?P<qvalue>[^"'`\n]{3,200})(?P=q)|(?P<value>[^\s"'`,;&}{)\]]{3,}))""",
)
_NAME_TAIL = later(r"(?:" + _NAME_WORDS + r")[\"']?$", re.I)
_XML = later(
    r"<(?P<tag>[\w:-]{0,64}(?:password|passwd|secret|token|apikey|api_key|"
    r"credentials?))>(?P<value>[^<\s]{3,200})</(?P=tag)>",
    re.I,
)
_GENERIC_KEY = later(r"(?:[a-z]key|_key)[\"']?$", re.I)
_STRONG_KEY = later(
    r"api|secret|private|access|auth|signing|encryption|master|license|session|client|write|app", re.I
)
_IDENTIFIER = later(r"^[a-z_][a-z_]*[a-z]$")
_PASSWORD_TAIL = later(r"\d{2,}$|[!@#$%^&*?~+=]")
_TITLE_WORDS = later(r"^[A-Z][a-z]+(?:[- ][A-Z][a-z]+)+$")
_CONSTANT = later(r"^[A-Z]+(?:_[A-Z0-9]+)+$")
# After an unquoted value: an operator and an operand, so the value is part of an expression.
_EXPRESSION = later(r"[ \t]*(?:[-+*/%|&^<>]|==|!=|\bif\b|\bor\b|\band\b)[ \t]*[\w(\[\"']")
_FORMATTED = later(r"[\"'`]?[ \t]*(?:%[ \t]*[\w(]|\.format\(|\.replace\(|\.join\()")

_URL_CREDS = later(r"([a-z][a-z0-9+.-]{1,20}://)([^\s:/@'\"]*):([^\s@/'\"]+)@", re.I)
_URL_PARAM = later(
    r"[?&;](?:api[_-]?key|apikey|key|token|access_token|refresh_token|id_token|sig|signature|secret|"
    r"client_secret|"
    r"password|passwd|pwd|auth|x-amz-signature|x-goog-signature)=([^&\s#\"'<>]{6,})",
    re.I,
)
_AUTH_HEADER = later(
    r"\b((?:proxy-)?authorization)(\s*[:=]\s*[\"']?\s*)(bearer|basic|token|bot|digest)\s+([^\s\"',}]+)", re.I
)
_BEARER = later(r"\b(bearer)\s+([A-Za-z0-9._~+/-]{16,}=*)", re.I)
_COOKIE_PAIR = later(r"(?:^|[\s;:,])([\w.$%-]{1,64})=([^;\s,\"']{8,})")
_COOKIE_ATTRS = frozenset({"path", "domain", "expires", "max-age", "samesite", "priority"})
# Secrets passed as command-line options: --password X, --token=X, docker login -p X, redis-cli -a X,
# mysql -pX.
_CLI_FLAG = later(
    r"(?:--(?:password|passwd|token|api-key|apikey|secret|auth-token|access-token|client-secret)[= ]"
    r"|\b(?:docker|podman|nerdctl|helm\s+registry)\s+login\b[^\n]{0,200}?\s-p\s|"
    r"\bredis-cli\b[^\n]{0,200}?\s-a\s"
    r"|\bmysql(?:dump|admin)?\b[^\n]{0,200}?\s-p(?=\S)|\bsshpass\s+-p\s?)['\"]?(?P<value>[^\s\"']{4,})"
)
# Only lines with one of these words can hold a command-line secret.
_CLI_GATE = later(r"--pass|--token|--api|--secret|--auth|--access|--client|login|redis-cli|mysql|sshpass")
_NETRC = later(r"\bmachine[ \t]+\S{1,256}[^\n]{0,200}?\bpassword[ \t]+(\S+)", re.I)
# `- name: DB_PASS` then `value: "..."` (Kubernetes and compose env lists).
_ENV_LIST = later(
    r"name:[ \t]*[\"']?[A-Za-z0-9_]{0,64}(?:PASS|SECRET|TOKEN|KEY|"
    r"PWD)[A-Za-z0-9_]{0,64}[\"']?[ \t]*\n[ \t]*value:[ \t]*"
    r"[\"']?([^\s\"']{4,})"
)
_XML_SETTING = later(
    r"""key=["'][^"']*(?:key|secret|token|password|pwd)[^"']*["']\s+value=["']([^"']{4,})""", re.I
)


def _type_name(value: str) -> bool:
    """Words run together (`PKCS7PrivateKeyTypes`) without the number or symbol passwords end in
    (`maple655`)."""
    return value.isalnum() and not value.islower() and wordy(value) and not _PASSWORD_TAIL.search(value)


def _assigned_value(m: re.Match[str], name: str) -> tuple[int, int] | None:
    quoted = m.group("qvalue") is not None
    group = "qvalue" if quoted else "value"
    value = m.group(group)
    start, end = m.span(group)
    if PLACEHOLDER.match(value):
        return None
    if not quoted:
        stripped = value.rstrip(TRAILING)
        end -= len(value) - len(stripped)
        value = stripped
    if len(value) < 3 or PLACEHOLDER.match(value) or value.startswith(("!", "&", "*", "|", ">")):
        return None  # placeholders, YAML tags, anchors and block scalars
    if not quoted and (CODE.search(value) or "[" in value or _EXPRESSION.match(m.string, m.end())):
        return None  # code (`token = next(tokens)`, `pw = pw[:-1]`, `Token = Ignore + PlainToken`)
    if quoted and _FORMATTED.match(m.string, m.end()):
        return None  # a format string (`key = "VS%0.f0COMNTOOLS" % version`)
    if value.isalpha() and len(value) <= 10:
        return None  # a plain word (`passwd: files`, `password: The password for...`), not key material
    if not quoted and (
        _IDENTIFIER.match(value) or _CONSTANT.match(value) or value.startswith("_") or _type_name(value)
    ):
        # a variable, constant or type (`self.api_key = api_key`, `"auth": LOG_AUTH`, `key: KeyType`)
        return None
    if quoted and (("_" in value and _IDENTIFIER.match(value)) or _TITLE_WORDS.match(value)):
        return None  # a quoted name (`"input_token": "next_token"`, `"Access-Control-Allow-Credentials"`)
    if _GENERIC_KEY.search(name) and not _STRONG_KEY.search(name) and not looks_random(value):
        return None
    if value.count(" ") >= 2 or (" " in value and not password_like(value.replace(" ", ""))):
        return None  # a quoted sentence, not a secret
    return start, end


def _line_spans(line: str) -> Iterator[tuple[int, int]]:
    lower = line.lower()
    done = -1  # each word is looked at once, however many naming words it holds (`keykeykey...`)
    for word in _IN_NAME.finditer(lower):
        if word.start() < done:
            continue
        m = _ASSIGN.match(line, word.end())
        done = m.end() if m else _WORD_REST.match(line, word.end()).end()  # pyright: ignore[reportOptionalMemberAccess]  # matches empty
        if m is None:
            continue
        start = word.start()
        while start and line[start - 1] in _NAME_CHARS:
            start -= 1
        if start and line[start - 1] in "${":
            continue  # ${DB_PASSWORD}
        if _NAME_TAIL.search(line[start : m.end("rest")]):
            span = _assigned_value(m, line[start : m.end("rest")])
            if span:
                yield span
    if "</" in line:
        for m in _XML.finditer(line):
            if not PLACEHOLDER.match(m.group("value")):
                yield m.span("value")
    if "://" in line and "@" in line:
        for m in _URL_CREDS.finditer(line):
            pw = m.group(3)
            if not PLACEHOLDER.match(pw) and not (pw.isalpha() and pw.lower() in {"password", "pass", "pwd"}):
                yield m.span(3)
    if "=" in line and ("?" in line or "&" in line or ";" in line):
        for m in _URL_PARAM.finditer(line):
            if not PLACEHOLDER.match(m.group(1)):
                yield m.span(1)
    if "auth" in lower or "bearer" in lower:
        for m in _AUTH_HEADER.finditer(line):
            if not PLACEHOLDER.match(m.group(4)):
                yield m.span(4)
        for m in _BEARER.finditer(line):
            yield m.span(2)
    if "cookie" in lower:
        at = lower.index("cookie")
        for m in _COOKIE_PAIR.finditer(line, at):
            value = m.group(2)
            # Session cookies are random; `fig=newton` in documentation is not one.
            if (
                m.group(1).lower() not in _COOKIE_ATTRS
                and not PLACEHOLDER.match(value)
                and looks_random(value)
            ):
                yield m.span(2)
    if _CLI_GATE.search(lower):
        for m in _CLI_FLAG.finditer(line):
            value = m.group("value")
            # A lowercase word after the flag is prose ("via the --password option"), not its value.
            if not PLACEHOLDER.match(value) and not (value.strip("`").isalpha() and value.islower()):
                yield m.span("value")
    if "machine" in lower:
        for m in _NETRC.finditer(line):
            yield m.span(1)
    if "value=" in lower:
        for m in _XML_SETTING.finditer(line):
            yield m.span(1)


def context_spans(text: str, lower: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every secret value named by its context. `lower` is `text` lowercased, same length."""
    seen: set[int] = set()
    lines: list[tuple[int, int]] = []
    for anchors in (_ANCHORS, _FOREIGN_ANCHORS) if not text.isascii() else (_ANCHORS,):
        pos = 0
        while True:
            m = anchors.search(lower, pos)
            if m is None:
                break
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            end = len(text) if end < 0 else end
            pos = end + 1
            if start not in seen:
                seen.add(start)
                lines.append((start, end))
    lines.sort()
    for start, end in lines:
        line = text[start:end]
        for a, b in chain(_line_spans(line), prose_spans(line, lower[start:end])):
            yield start + a, start + b
    # Patterns that span two lines, only where their words occur.
    if "value:" in lower:
        for m in _ENV_LIST.finditer(text):
            yield m.span(1)
    if "|" in text:
        yield from table_spans(text, lines)
