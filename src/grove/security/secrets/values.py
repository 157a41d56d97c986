"""What a secret value looks like, as opposed to a placeholder (`<YOUR_KEY>`, `${VAR}`, `changeme`), a piece
of code (`settings.api_key`, `next(tokens)`) or a plain word: shared by the detectors that find values by
name."""

from __future__ import annotations

import re

from grove.lazy_regex import later

PLACEHOLDER = later(
    r"^(?:\$\{?\w*\}?.*|<[^>]*>?|\{\{.*|%\(.*|\*+|x{3,}|X{3,}|\.\.\.|…|null|none|nil|true|false|undefined|"
    r"required|optional|changeme|change_?me|replace_?me|example|your[_-].*|my[_-].*|redacted|"
    r".*\[redacted\].*|"
    r"placeholder|env\(.*|os\.environ.*|process\.env.*|getenv.*|secrets?\.\w+.*|settings\.\w+.*|"
    r"config\.\w+.*|"
    r"\d{1,6}|\d+(?:[.,]\d+)+|str|string|int|bool|bytes|any|dict|list|password|passwd|secret|token|"
    r"hidden|masked|"
    r".*\*\*\*.*|.*….*|.*\.\.\.|#[0-9a-f]{3,8}|%[-#0-9.]*[sdrfxi].*|.*(?:x{6,}|X{6,}).*)$",
    re.I,
)
CODE = later(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+$|^[A-Za-z_]\w*\(|\(")

TRAILING = ".,;:)]}"  # sentence punctuation after a value; `!` and `?` are kept, passwords end in them


# `password: !vault |` is a YAML tag before an encrypted block, not a password.
_YAML_TAG = later(r"^[!&*][A-Za-z_]*$")


def password_like(value: str) -> bool:
    """Key material or a password, not a word: letters and a digit or symbol (hyphens only in long
    passphrases)."""
    if len(value) < 6 or PLACEHOLDER.match(value) or _YAML_TAG.match(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    core = value.rstrip("!?")  # a word before `?` or `!` is still a word (`vergessen?`)
    has_symbol = any(c in "!@#$%^&*?~+=" for c in core) or (value.count("-") >= 2 and len(value) >= 16)
    return has_alpha and (has_digit or has_symbol)


def looks_random(value: str) -> bool:
    """For generic `*_key` names (sort_key, cache_key): only values that look like key material."""
    return len(value) >= 16 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
