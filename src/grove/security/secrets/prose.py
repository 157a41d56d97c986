"""Secrets said in prose rather than assigned: "the password is X", "admin / X", "pass `X`", `Passwort: X`,
`密码是 X`, and the password column of a Markdown table."""

from __future__ import annotations

import re
from collections.abc import Iterator

from grove.lazy_regex import later
from grove.security.secrets.values import CODE, PLACEHOLDER, TRAILING, password_like

_FOREIGN_ASCII = later(r"wort|contrase|senha|mot de passe|haslo|salasana|passord|sifre|adgangskode")
# "password" in other languages, then an optional "is" or colon (`Passwort: X`, `密码是 X`, `пароль - X`).
_FOREIGN = later(
    r"(?:passwort|kennwort|wachtwoord|contraseña|contrasena|senha|mot de passe|пароль|密码|密碼|パスワード|비밀번호|"
    r"hasło|haslo|salasana|lösenord|adgangskode|passord|şifre|sifre)"
    r"[ \t]*(?:[:：=]|ist|es|est|é|è|是|为|は|:|-|—)?[ \t]*[`'\"«“「]?(?P<value>[^\s`'\"»”」，。、]{6,128})"
)
# Prose: "the password is X", "password for alice@x: X", "pass `X`", "log in with password X".
_PROSE = later(
    r"\b(?P<word>password|passwd|passphrase|pass|pwd|pw)\b"
    r"(?:\s+(?:for|of|to|on)\s+(?:the\s+)?[\w.@/-]+(?:\s+account)?)?"
    r"(?P<sep>\s+(?:is|was|will\s+be)\s*:?|\s*[:=]|\s)\s*(?P<q>[`'\"]?)(?P<value>[^\s`'\"]{6,128})"
)
# "admin / S3cret!", "deploy/hunter2" with a credential word on the line or a usual account name.
_PAIR = later(r"(?<![\w/.:-])(?P<user>[A-Za-z][\w.@-]{1,40}+)[ \t]?/[ \t]?(?P<value>[^\s/()`'\",]{6,128}+)")
_CRED_WORD = later(
    r"cred|login|log in|password|passwd|\baccount\b|\buser|\bpass\b|pwd|\badmin\b|\broot\b|sign in"
)
_USUAL_USERS = frozenset(
    {"admin", "root", "administrator", "sa", "postgres", "user", "guest", "test", "demo"}
)


def prose_spans(line: str, lower: str) -> Iterator[tuple[int, int]]:
    """(start, end) within `line` of passwords said in prose. `lower` is `line` lowercased, same length."""
    if not line.isascii() or _FOREIGN_ASCII.search(lower):
        for m in _FOREIGN.finditer(lower):
            value = line[m.start("value") : m.end("value")].rstrip(TRAILING)
            if password_like(value) and not CODE.search(value):
                yield m.start("value"), m.start("value") + len(value)
    if "pw" in lower or "pass" in lower:
        for m in _PROSE.finditer(lower):
            value = line[m.start("value") : m.end("value")].rstrip(TRAILING)
            if m.group("word") == "pass" and not m.group("q") and not m.group("sep").strip():
                continue  # the verb: "pass ssl=True to ...", "you can pass `spec=True`"
            if "=" in value.rstrip("="):
                continue  # an argument (`type_comments=True`), not a password
            if password_like(value) and not CODE.search(value) and "[" not in value:
                yield m.start("value"), m.start("value") + len(value)
    if "/" in line and " " in line.strip():  # a lone base64 run is not "user/password" prose
        has_word: bool | None = None  # looked up only when a pair shows up
        for m in _PAIR.finditer(line):
            value = m.group("value").rstrip(TRAILING)
            if not password_like(value):
                continue
            if has_word is None:
                has_word = _CRED_WORD.search(lower) is not None
            if has_word or m.group("user").lower() in _USUAL_USERS:
                if value.startswith(".") or "*." in value or ".*" in value:
                    continue  # a glob or a pattern (`shared/.*.tmp`)
                if (
                    "." in value
                    and value.rsplit(".", 1)[-1].isalpha()
                    and not any(c in "!@#$%^&*" for c in value)
                ):
                    continue  # a file name (`src/app.py`)
                yield m.start("value"), m.start("value") + len(value)


_TABLE_RULE = later(r"[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|?)+[ \t]*(?=\n|$)")
_COLUMN_NAME = later(r"pass|secret|token|key|pwd", re.I)


def table_spans(text: str, lines: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Markdown tables with a password/secret/token column: that column's cells in the rows below."""
    done = -1  # rows already read as part of a table are not headers of another one
    for start, end in lines:
        if start < done:
            continue
        header = text[start:end]
        if not header.lstrip().startswith("|"):
            continue
        if not _TABLE_RULE.match(text, end + 1):
            continue  # a header row is followed by `|---|---|`
        cells = header.strip().strip("|").split("|")
        cols = {i for i, c in enumerate(cells) if len(c.strip()) <= 30 and _COLUMN_NAME.search(c)}
        if not cols:
            continue
        pos = _TABLE_RULE.match(text, end + 1).end() + 1  # pyright: ignore[reportOptionalMemberAccess]  # matched above
        while pos < len(text):
            nl = text.find("\n", pos)
            row_end = len(text) if nl < 0 else nl
            row = text[pos:row_end]
            if not row.lstrip().startswith("|"):
                break
            offset = pos + row.index("|") + 1
            for i, cell in enumerate(row.strip().strip("|").split("|")):
                value = cell.strip()
                if i in cols and value and set(value) - set("-: ") and not PLACEHOLDER.match(value):
                    at = text.index(value, offset)
                    yield at, at + len(value)
                offset += len(cell) + 1
            pos = row_end + 1
        done = pos
