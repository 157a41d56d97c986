"""Where the injection signals are: each pattern runs over the text where RE2 says it may match (signal_gate) and
its hits are mapped to windows of two sentences; whole-text signals (encoded payloads, token floods, invisible or
tag characters) come on top."""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from grove.security.fast import shortcuts
from grove.security.fast.caseless import Caseless, lowercase_safe
from grove.security.fast.regex_prune import Pruned
from grove.security.fast.signal_gate import Gate
from grove.security.injection.normalize import Normalized, normalize
from grove.security.injection.rules import SIGNALS
from grove.security.injection.token_floods import token_flood

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


# Composites as sets, in COMPOSITES order (the order they join a window's signals). None needs another composite.
_COMPOSITE_NEEDS = [(name, tuple(frozenset(need) for need in alts)) for name, alts in COMPOSITES.items()]


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
    from grove.security.commands.classify import classify_command

    try:
        return classify_command(cmd).level == "dangerous"
    except Exception:  # a command the shell parser cannot read is no evidence either way
        return False


def _commands(text: str, matches: Iterable[re.Match[str]] | None = None) -> list[tuple[int, str]]:
    """(position, why) for each asked-for command that the command rules call dangerous; `matches` are
    _COMMAND's matches in `text`, when the caller has them."""
    out = []
    dangerous = _dangerous if shortcuts.on() else _dangerous.__wrapped__
    for m in _COMMAND.finditer(text) if matches is None else matches:
        cmd = m.group(m.lastindex or 0).strip()  # each alternative holds one group
        if _COMMAND_HINT.search(cmd) and dangerous(cmd):
            out.append((m.start(), f"asks to run {cmd[:60]!r}"))
    return out


# A word of a URL's host or path names an endpoint, not data to move: `POST https://api.x.com/v1/chat` or
# `/bulk-send/{id}` are no "send" and no "chat history". The query and any slot (`{chat_history}`) still count.
_NOT_IN_URL = frozenset({"send", "secret_object"})
_URL_FIXED = re.compile(r"https?://[^\s?#{}$%\"'<>()\[\]`]*")


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    i = bisect.bisect_right(spans, (pos, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


_PUNCT_END = re.compile(r"[.!?](?=\s)")
# A "sentence" longer than this (minified code, a one-line JSON file) is cut into pieces of this size: otherwise one
# window spans kilobytes and adds up words that are nowhere near each other.
MAX_SENTENCE = 1000


def _line_bounds(text: str, pos: int, n: int, lines: dict[int, list[int]]) -> list[int]:
    """The sentence bounds of the line holding `pos` < n: its start, each end of a `[.!?]` before a space, and the
    end of the line (past its newline); `lines` keeps them by the line's start."""
    first = text.rfind("\n", 0, pos) + 1
    bounds = lines.get(first)
    if bounds is None:
        nl = text.find("\n", pos)
        stop = n if nl < 0 else nl + 1
        bounds = lines[first] = [first, *(m.end() for m in _PUNCT_END.finditer(text, first, stop)), stop]
    return bounds


def _piece(bounds: list[int], pos: int) -> tuple[int, int]:
    """The sentence of `bounds` holding `pos`, or the MAX_SENTENCE piece of it (pieces count from its start)."""
    k = bisect.bisect_right(bounds, pos) - 1
    start, end = bounds[k], bounds[k + 1]
    start += (pos - start) // MAX_SENTENCE * MAX_SENTENCE
    return start, min(start + MAX_SENTENCE, end)


def sentence_spans(text: str, positions: Iterable[int]) -> list[tuple[int, int]]:
    """The sentence, or MAX_SENTENCE piece of one, holding each position: the span between the bounds
    [0, each end of `[.!?]` before a space or of a newline, len(text)] around it, a sentence longer than
    MAX_SENTENCE cut into pieces from its start. A sentence ends at every newline, so only the lines with a
    position are read (not every sentence of the text). A position past the text is in the last span: (n, n) after
    a final newline."""
    n = len(text)
    lines: dict[int, list[int]] = {}
    line = [0, 0]  # the bounds of the last position's line (positions mostly come in runs on one line)
    out = []
    for pos in positions:
        if not line[0] <= pos < line[-1]:
            if pos >= n:
                if n == 0 or text[-1] == "\n":
                    out.append((n, n))
                    continue
                pos = n - 1
            line = _line_bounds(text, pos, n, lines)
        out.append(_piece(line, pos))
    return out


# RE2 says which signals (and the command pattern) may match, and where: the rest are skipped. The gate holds
# the twins, so it is asked about a signal only for lowercase-safe text, where its twin (or cut) is what runs.
_GATE = Gate([fast.twin for _, fast in _FAST] + [_COMMAND])
_GATE_COMMAND = len(_FAST)
# Shorter texts (a prompt, a tool result, a memory entry) run in `re` alone: the same results, and a one-shot run
# that scans only those never compiles RE2 (~0.1 s). Once a long text has compiled it, they go through it too: a
# scan's lines read as leetspeak are mostly short, and gated they cost a tenth.
GATE_FROM = 1000


def _look(gate: Gate, text: str) -> tuple[bytes | None, list[bool]]:
    if gate.built or len(text) >= GATE_FROM:
        return gate.look(text)
    return None, [True] * gate.size


def windows_of(text: str) -> list[Window]:
    """Signals per sentence, then merged into windows of two neighbouring sentences."""
    safe = lowercase_safe(text)
    data, may = _look(_GATE, text)
    # Every hit, in the order the signals and their matches come: a sentence's signals and first excerpts are
    # then added in the same order as when every sentence had its own Window (set and dict order stay the same).
    found: list[tuple[int, str, int, str | None]] = []  # (position, signal, match end, or why)
    fixed: list[tuple[int, int]] | None = None  # URL hosts and paths, found when first needed
    for i, ((sig, fast), cut) in enumerate(zip(_FAST, _CUT, strict=True)):
        if not safe:
            matches = fast.pattern.finditer(text)
        elif not may[i]:
            continue  # the twin, and so its cut, cannot match
        elif _GATE.guides(i, data):
            # Only the places RE2 picks are tried: the twin is as quick there as a cut, which costs a look at the text.
            # the gate guides only a pattern it was given, so this signal has a twin
            matches = _GATE.finditer(i, fast.twin, text, data)  # pyright: ignore[reportArgumentType]
        else:
            pattern = cut.for_text(text) if cut is not None else fast.for_text(text, safe)
            if pattern is None:
                continue
            matches = pattern.finditer(text)
        name = sig.name
        if name in _NOT_IN_URL and "http" in text:
            for m in matches:
                if fixed is None:
                    fixed = [u.span() for u in _URL_FIXED.finditer(text)]
                if not _inside(fixed, m.start()):
                    found.append((m.start(), name, m.end(), None))
            continue
        found += [(m.start(), name, m.end(), None) for m in matches]
    if may[_GATE_COMMAND]:
        commands = _commands(text, _GATE.finditer(_GATE_COMMAND, _COMMAND, text, data))
        found += [(pos, "dangerous_command", 0, why) for pos, why in commands]
    if not found:
        return []
    hit: dict[int, Window] = {}  # sentence (or piece) start -> the sentence, only for sentences with a hit
    for (pos, name, end, why), (start, stop) in zip(
        found, sentence_spans(text, [f[0] for f in found]), strict=True
    ):
        w = hit.get(start)
        if w is None:
            w = hit[start] = Window(start, stop)
        if name not in w.signals:
            w.signals.add(name)
            w.excerpts[name] = why if why is not None else _excerpt(text, pos, end)
    live = [hit[k] for k in sorted(hit)]
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
        if len(w.signals) < 2:
            continue  # every composite needs two signals or more
        for name, alternatives in _COMPOSITE_NEEDS:
            if any(need <= w.signals for need in alternatives):
                w.signals.add(name)
    return out


_B64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/])")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}[ :]?){12,}\b")
_UESC = re.compile(r"(?:\\u[0-9a-fA-F]{4}\s?){4,}")
_TAGS = re.compile("[\U000e0020-\U000e007e]{4,}")
WIDE_CHARS = 6000


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(c.isalpha() for c in text)
    spaces = text.count(" ")
    return text if letters >= len(text) * 0.6 and spaces >= 2 else None


# The three encodings' patterns walk every word of a text to find a rare run: RE2 finds where one may start.
_PAYLOAD_GATE_OF = (_B64, _HEX, _UESC)
_PAYLOAD_GATE = Gate(_PAYLOAD_GATE_OF)


def decoded_payloads(text: str, tags: bool = True) -> list[str]:
    """Readable text hidden as base64, hex, \\u escapes or Unicode tag characters (looked for when `tags`)."""
    out: list[str] = []
    data, may = _look(_PAYLOAD_GATE, text)
    b64, hexes, uesc = (
        _PAYLOAD_GATE.finditer(i, p, text, data) if may[i] else () for i, p in enumerate(_PAYLOAD_GATE_OF)
    )
    for m in b64:
        chunk = m.group(0)
        if chunk.isalpha() or chunk.isdigit():
            continue
        try:
            decoded = _readable(base64.b64decode(chunk + "=" * (-len(chunk) % 4), validate=False))
        except (binascii.Error, ValueError):
            decoded = None
        if decoded:
            out.append(decoded)
    for m in hexes:
        digits = re.sub(r"[ :]", "", m.group(0))
        if len(digits) % 2 == 0:
            decoded = _readable(bytes.fromhex(digits))
            if decoded:
                out.append(decoded)
    for m in uesc:
        decoded = "".join(chr(int(h, 16)) for h in re.findall(r"\\u([0-9a-fA-F]{4})", m.group(0)))
        if sum(c.isalpha() for c in decoded) >= 4:
            out.append(decoded)
    for m in _TAGS.finditer(text) if tags else ():
        out.append("".join(chr(ord(c) - 0xE0000) for c in m.group(0)))
    return out


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
    # Tag characters are invisible ones (normalize counts them): a run of four needs four.
    tags = norm.invisible >= 4
    for payload in decoded_payloads(text, tags):
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
    if tags and _TAGS.search(text):
        whole["tag_chars"] = "text hidden in Unicode tag characters"
    if norm.invisible >= 3 and not norm.bidi:
        whole["invisible"] = f"{norm.invisible} invisible character(s)"
    if norm.mixed_script_words:
        whole["mixed_script"] = f"{norm.mixed_script_words} word(s) mixing scripts"
    return Evidence(wins, whole, norm)
