"""Where the injection signals are: each pattern runs once over the text and its hits are mapped to windows of
two sentences; whole-text signals (encoded payloads, token floods, invisible or tag characters) come on top."""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import operator
import re
from dataclasses import dataclass, field

from grove.security.caseless import Caseless, lowercase_safe
from grove.security.injection_rules import SIGNALS
from grove.security.normalize import Normalized, normalize
from grove.security.regex_prune import Pruned

_ATTACKS = (
    "override",
    "new_orders",
    "secrecy",
    "safety_off",
    "fetch_run",
    "harm",
    "leak",
    "dangerous_command",
)
# Composite evidence: signals that mean little alone and much together, in one window.
COMPOSITES: dict[str, tuple[tuple[str, ...], ...]] = {
    "exfil": (("send", "secret_object", "channel"),),
    "addressed_attack": (
        *((a, s) for a in ("addressee", "vocative", "hidden") for s in _ATTACKS),
        ("vocative", "hidden"),
        ("addressee", "hidden"),
        ("addressee", "send", "secret_object"),
        ("vocative", "send", "secret_object"),
    ),
    "roleplay_unbound": (("roleplay", "unbound"),),
    "override_orders": (("override", "new_orders"), ("override", "force_reply"), ("override", "leak")),
    "marker_orders": tuple(
        (m, s)
        for m in ("role_marker", "boundary", "authority")
        for s in (
            "override",
            "new_orders",
            "safety_off",
            "fetch_run",
            "unbound",
            "leak",
            "force_reply",
            "harm",
        )
    ),
}


# Normalised text is lowercase: each signal runs as its case-sensitive twin there (same matches, ~2x faster),
# cut to the alternatives whose required words the text holds.
_FAST = [(sig, Caseless(sig.pattern)) for sig in SIGNALS]
_CUT = [Pruned(fast.twin) if fast.twin is not None else None for _, fast in _FAST]


@dataclass
class Window:
    start: int
    end: int
    signals: set[str] = field(default_factory=set)
    excerpts: dict[str, str] = field(default_factory=dict)


@dataclass
class Evidence:
    windows: list[Window]
    whole: dict[str, str]  # whole-text signal -> why
    norm: Normalized


def _excerpt(text: str, start: int, end: int) -> str:
    s = " ".join(text[start:end].split())
    return s if len(s) <= 80 else s[:77] + "..."


# Commands the text wants run: in backticks, in tool-call JSON or markup, or after "run:"/"execute:".
_COMMAND = re.compile(
    r"`([^`\n]{2,300})`|\"(?:command|cmd)\"\s*:\s*\"((?:[^\"\\]|\\.){2,300})\"|"
    r"<parameter\s+name=\"command\">([^<]{2,300})<|\b(?:run|execute|exec)\s*:\s*([^\n`]{4,200})"
)


# Only spans with one of these can be dangerous commands; the rest (`pytest -q`, `config.yaml`) skip the parser,
# which costs ~0.4 ms a call and a README has hundreds of code spans.
_COMMAND_HINT = re.compile(
    r"\b(?:rm|curl|wget|nc|ncat|cat|sh|bash|zsh|chmod|chown|sudo|dd|mkfs|ssh|scp|rsync|git|env|printenv|"
    r"python3?|node|perl|ruby|eval|base64|crontab|kill|shred|truncate|find|xargs|tar|mv|cp|docker|kubectl)\b|[>|;&$]"
)


@functools.lru_cache(maxsize=4096)
def _dangerous(cmd: str) -> bool:
    from grove.security.commands import classify_command

    try:
        return classify_command(cmd).level == "dangerous"
    except Exception:  # a command the shell parser cannot read is no evidence either way
        return False


def _commands(text: str) -> list[tuple[int, str]]:
    """(position, why) for each asked-for command that the command rules call dangerous."""
    out = []
    for m in _COMMAND.finditer(text):
        cmd = next(g for g in m.groups() if g is not None).strip()
        if _COMMAND_HINT.search(cmd) and _dangerous(cmd):
            out.append((m.start(), f"asks to run {cmd[:60]!r}"))
    return out


# A word of a URL's host or path names an endpoint, not data to move: `POST https://api.x.com/v1/chat` or
# `/bulk-send/{id}` are no "send" and no "chat history". The query and any slot (`{chat_history}`) still count.
_NOT_IN_URL = frozenset({"send", "secret_object"})
_URL_FIXED = re.compile(r"https?://[^\s?#{}$%\"'<>()\[\]`]*")


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    i = bisect.bisect_right(spans, (pos, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
# A "sentence" longer than this (minified code, a one-line JSON file) is cut into pieces of this size: otherwise one
# window spans kilobytes and adds up words that are nowhere near each other.
MAX_SENTENCE = 1000


def _cut_long(bounds: list[int]) -> list[int]:
    out = [0]
    for end in bounds[1:]:
        while end - out[-1] > MAX_SENTENCE:
            out.append(out[-1] + MAX_SENTENCE)
        out.append(end)
    return out


def windows_of(text: str) -> list[Window]:
    """Signals per sentence, then merged into windows of two neighbouring sentences."""
    bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    if len(text) > MAX_SENTENCE and max(map(operator.sub, bounds[1:], bounds)) > MAX_SENTENCE:
        bounds = _cut_long(bounds)
    sentences = [Window(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]

    def add(pos: int, name: str, excerpt: str) -> None:
        w = sentences[min(bisect.bisect_right(bounds, pos) - 1, len(sentences) - 1)]
        if name not in w.signals:
            w.signals.add(name)
            w.excerpts[name] = excerpt

    safe = lowercase_safe(text)
    fixed: list[tuple[int, int]] | None = None  # URL hosts and paths, found when first needed
    for (sig, fast), cut in zip(_FAST, _CUT, strict=True):
        pattern = cut.for_text(text) if safe and cut is not None else fast.for_text(text, safe)
        if pattern is None:
            continue
        if sig.name in _NOT_IN_URL and "http" in text:
            if fixed is None:
                fixed = [u.span() for u in _URL_FIXED.finditer(text)]
            for m in pattern.finditer(text):
                if not _inside(fixed, m.start()):
                    add(m.start(), sig.name, _excerpt(text, m.start(), m.end()))
            continue
        for m in pattern.finditer(text):
            add(m.start(), sig.name, _excerpt(text, m.start(), m.end()))
    for pos, why in _commands(text):
        add(pos, "dangerous_command", why)
    live = [w for w in sentences if w.signals]
    out: list[Window] = []
    for i, w in enumerate(live):
        merged = Window(w.start, w.end, set(w.signals), dict(w.excerpts))
        nxt = live[i + 1] if i + 1 < len(live) else None
        if nxt is not None and nxt.start - w.end <= 2:
            merged.end = nxt.end
            merged.signals |= nxt.signals
            merged.excerpts = {**nxt.excerpts, **merged.excerpts}
        out.append(merged)
    for w in out:
        for name, alternatives in COMPOSITES.items():
            if any(set(need) <= w.signals for need in alternatives):
                w.signals.add(name)
    return out


_B64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/])")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}[ :]?){12,}\b")
_UESC = re.compile(r"(?:\\u[0-9a-fA-F]{4}\s?){4,}")
_TAGS = re.compile("[\U000e0020-\U000e007e]{4,}")
_FLOOD = re.compile(r"(.{1,8}?)\1{29,}", re.S)
WIDE_CHARS = 6000
_SEPARATORS = set("-=_*#~|+.,:;0123456789 \t\n")


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(c.isalpha() for c in text)
    spaces = text.count(" ")
    return text if letters >= len(text) * 0.6 and spaces >= 2 else None


def decoded_payloads(text: str) -> list[str]:
    """Readable text hidden as base64, hex, \\u escapes or Unicode tag characters."""
    out: list[str] = []
    for m in _B64.finditer(text):
        chunk = m.group(0)
        if chunk.isalpha() or chunk.isdigit():
            continue
        try:
            decoded = _readable(base64.b64decode(chunk + "=" * (-len(chunk) % 4), validate=False))
        except (binascii.Error, ValueError):
            decoded = None
        if decoded:
            out.append(decoded)
    for m in _HEX.finditer(text):
        digits = re.sub(r"[ :]", "", m.group(0))
        if len(digits) % 2 == 0:
            decoded = _readable(bytes.fromhex(digits))
            if decoded:
                out.append(decoded)
    for m in _UESC.finditer(text):
        decoded = "".join(chr(int(h, 16)) for h in re.findall(r"\\u([0-9a-fA-F]{4})", m.group(0)))
        if sum(c.isalpha() for c in decoded) >= 4:
            out.append(decoded)
    for m in _TAGS.finditer(text):
        out.append("".join(chr(ord(c) - 0xE0000) for c in m.group(0)))
    return out


def may_flood(text: str) -> bool:
    """False only when no unit of 1-8 characters stands 30 times in a row (_FLOOD cannot match). Such a run of a
    unit of L characters is 29*L characters equal to the ones L further on: in the text's bytes (one a character,
    or four) XORed with themselves shifted by L characters, a run of 29*L*width zero bytes. Big-integer shifts
    and a bytes search find that at C speed; the regex tries eight unit lengths at every position."""
    if len(text) < 30:
        return False
    if text.isascii():
        data, width = text.encode("ascii"), 1
    else:
        data, width = text.encode("utf-32-le", "surrogatepass"), 4
    n = len(data)
    whole = int.from_bytes(data, "little")
    for size in range(1, 9):
        shift = width * size
        if n < 30 * shift:
            break
        diff = (whole >> (8 * shift)) ^ (whole & ((1 << (8 * (n - shift))) - 1))
        if b"\0" * (29 * shift) in diff.to_bytes(n - shift, "little"):
            return True
    return False


def token_flood(text: str) -> str | None:
    """A short unit repeated 30+ times in a row (`ö ö ö ...`, `)]})]}...`): padding meant to push earlier
    instructions out of a model's attention. Separator lines and numeric arrays do not count."""
    if not may_flood(text):
        return None
    for m in _FLOOD.finditer(text):
        unit = m.group(1)
        if len(unit.strip()) > 1 or (unit.strip() and len(unit) > 1):
            pass
        else:
            continue  # one character repeated ("aaaa", "────") is a line or a blob, not token padding
        if not set(unit) <= _SEPARATORS and len(set(unit.strip())) <= 6:
            return f"{unit.strip()!r} repeated {len(m.group(0)) // len(unit)} times"
    return None


def gather(text: str) -> Evidence:
    """All the evidence in `text`: signal windows of the normalised text (and of any decoded payload), plus
    whole-text signals."""
    norm = normalize(text)
    wins = windows_of(norm.text)
    if norm.deleet != norm.text:
        # The leetspeak reading matters only where it differs: scan just those lines a second time.
        pairs = zip(norm.text.split("\n"), norm.deleet.split("\n"), strict=False)
        wins += windows_of("\n".join(b for a, b in pairs if a != b))
    whole: dict[str, str] = {}
    for payload in decoded_payloads(text):
        inner = windows_of(normalize(payload).text)
        if inner:
            for w in inner:
                w.signals.add("encoded")
                w.excerpts["encoded"] = "decoded: " + _excerpt(payload, 0, len(payload))
            wins += inner
            whole.setdefault("encoded", "a base64/hex/escaped payload that decodes to instructions")
    # A jailbreak spreads its role-play frame and its "no limits" over paragraphs: in a prompt-sized text the
    # pair counts wherever the two stand.
    if len(norm.text) <= WIDE_CHARS:
        seen = set().union(*(w.signals for w in wins)) if wins else set()
        if {"roleplay", "unbound"} <= seen:
            wide = Window(0, len(norm.text), {"roleplay", "unbound", "roleplay_unbound"})
            for w in wins:
                for name in ("roleplay", "unbound"):
                    if name in w.signals:
                        wide.excerpts.setdefault(name, w.excerpts[name])
            wins.append(wide)
    flood = token_flood(text)
    if flood:
        whole["flood"] = flood
    if norm.bidi:
        whole["bidi"] = f"{norm.bidi} bidi control character(s)"
    if _TAGS.search(text):
        whole["tag_chars"] = "text hidden in Unicode tag characters"
    if norm.invisible >= 3 and not norm.bidi:
        whole["invisible"] = f"{norm.invisible} invisible character(s)"
    if norm.mixed_script_words:
        whole["mixed_script"] = f"{norm.mixed_script_words} word(s) mixing scripts"
    return Evidence(wins, whole, norm)
