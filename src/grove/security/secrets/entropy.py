"""Secrets with no name and no known format: random-looking tokens next to a word like token, key or password,
very random ones on their own, and base64 blobs (one line or wrapped) that decode to a secret. Benign
look-alikes are told apart by shape and by their label: hashes, digests, UUIDs, slugs, paths, URLs, images."""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterator

from grove.lazy_regex import later
from grove.security.secrets.base64_blobs import MAX_BINARY, decode, holds_secret, is_asn1, is_text

# Runs of token characters, found once each (the lookbehind stops a restart inside a run).
RUNS = later(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}={0,2}")
_HEX = later(r"^[0-9a-fA-F]+$")
_UUID = later(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_VOWELS = frozenset("aeiouyAEIOUY")
_WORDS = later(r"[A-Z]?[a-z]{2,}|[A-Z]{3,}")
_WORD_SEGMENT = later(r"(?:^|[-_/.])[a-z]{3,}(?=[-_/.]|$)")
_SECRET_WORD = later(
    r"pass|pwd|secret|token|key|auth|credential|creds|bearer|cookie|session|sig|hmac|login|private"
)
# Labels of benign random-looking values: hashes and digests, ids, caches. Nearer than a secret word, they
# win.
_HASH_LABEL = later(
    r"sha\d*|md5|checksum|digest|hash|etag|integrity|commit|cache|fingerprint|h1:|revision|\brev\b|"
    r"object|blob|"
    r"build|trace|span|request|correlation|uuid|nonce|salt|\bids?\b|image|layer|container|version|restore|"
    r"ssh-(?:ed25519|rsa|dss)|ecdsa-|base64,|run-|checkpoint|kid\b|git\b"
)
# Subresource-integrity and similar self-labelled digests: `sha384-<base64>`.
_DIGEST_PREFIX = later(r"^(?:sha(?:1|224|256|384|512)|md5)-", re.I)
_STANDALONE_MIN, _STANDALONE_MAX = 32, 100
# Longer runs are files (images, archives), judged only by what they decode to.
_NAMED_MAX = 512


_C_LOG_C = [0.0] + [c * math.log2(c) for c in range(1, 1025)]


def entropy(token: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(token)
    counts = Counter(token).values()
    if n > 1024:
        return -sum(c / n * math.log2(c / n) for c in counts)
    return math.log2(n) - sum(map(_C_LOG_C.__getitem__, counts)) / n


_CLASSES = str.maketrans(
    {
        **dict.fromkeys(map(ord, string.ascii_uppercase), "A"),
        **dict.fromkeys(map(ord, string.ascii_lowercase), "a"),
        **dict.fromkeys(map(ord, string.digits), "0"),
    }
)
_CLASS_RUN = later(r"A+|a+|0+|[^Aa0]+")
_UPPER, _LOWER, _DIGITS = set(string.ascii_uppercase), set(string.ascii_lowercase), set(string.digits)
_HEX_CHARS = set(string.hexdigits)


def _transitions(token: str) -> float:
    """How often the character class (upper, lower, digit, other) changes: ~0.6 for random base62, low for
    CamelCase identifiers and words."""
    changes = len(_CLASS_RUN.findall(token.translate(_CLASSES))) - 1
    return changes / max(1, len(token) - 1)


def wordy(token: str) -> bool:
    """Mostly made of words (`sizeEndCentDir64Locator`, `_CD64_CREATE_VERSION`): an identifier. A word here
    is a
    run of letters with a vowel in every five (`Locator`); random base62 has letter runs too, but few like
    that."""
    words = (
        w for w in _WORDS.findall(token) if len(w) >= 3 and sum(c in _VOWELS for c in w) >= max(1, len(w) / 5)
    )
    return sum(len(w) for w in words) >= 0.6 * len(token)


def _is_random(token: str, hex_ok: bool) -> bool:
    """Shape of key material: long enough, letters and digits, not a slug, path, UUID or identifier."""
    chars = set(token)
    if not chars & _DIGITS or not (chars & _LOWER or chars & _UPPER):
        return False
    if chars <= _HEX_CHARS:
        return hex_ok and len(token) >= 32 and len(chars) >= 10 and entropy(token) >= 3.0
    if len(chars) < min(len(token) // 2, 16):
        return False  # too few distinct characters for key material (words, repeated patterns)
    if _UUID.match(token) or len(_WORD_SEGMENT.findall(token)) >= 2 or wordy(token):
        return False
    return _transitions(token) >= 0.3 and entropy(token) >= min(4.2, math.log2(len(token)) - 0.7)


def _very_random(token: str) -> bool:
    """On its own, with nothing naming it: only clearly random base62/base64 (upper, lower, digits). Called on
    tokens `_is_random` accepted."""
    if not _STANDALONE_MIN <= len(token) <= _STANDALONE_MAX or _HEX.match(token):
        return False
    chars = set(token)
    has_all = bool(chars & _UPPER and chars & _LOWER and chars & _DIGITS)
    return has_all and entropy(token) >= 4.3 and _transitions(token) >= 0.45


def _named_by_context(before: str, around: str, is_hex: bool) -> bool:
    """A secret word near the token, with no hash or id label nearer to it (for hex, none on the line
    before it:
    `sha256 of key.pem: <hex>` is a digest)."""
    last_secret = max((m.end() for m in _SECRET_WORD.finditer(before)), default=-1)
    if last_secret < 0 and _SECRET_WORD.search(around) is None:
        return False  # the usual case, decided without the longer label scan
    last_label = max((m.end() for m in _HASH_LABEL.finditer(before)), default=-1)
    if is_hex and last_label >= 0:
        return False
    if last_secret >= 0 or last_label >= 0:
        return last_secret > last_label
    return _SECRET_WORD.search(around) is not None and _HASH_LABEL.search(around) is None


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return line_start, len(text) if line_end < 0 else line_end


def _in_url(text: str, start: int, line_start: int) -> bool:
    word_start = max(text.rfind(" ", line_start, start), text.rfind("\t", line_start, start)) + 1
    word = text[max(word_start, line_start) : start]
    return "://" in word or (word.startswith(("www.", "/")) and "?" in word)


_TAIL = later(r"\n[ \t]*([A-Za-z0-9+/_-]{1,19}={0,2})[ \t\"'`]*(?=\n|$)")


def _block(text: str, matches: list[re.Match[str]], i: int) -> tuple[int, tuple[int, int] | None]:
    """The last candidate of a wrapped base64 block starting at matches[i] (lines that are nothing but base64,
    the first and last possibly after or before a quote), and the span of a short last line if there is
    one."""
    j = i
    while j + 1 < len(matches):
        cur, nxt = matches[j], matches[j + 1]
        between = text[cur.end() : nxt.start()]
        if "\n" not in between or between.strip(" \t\r\n\"'`") or between.count("\n") > 1:
            break
        if len(cur.group(0)) < 40:
            break
        j += 1
    last = matches[j]
    tail = _TAIL.match(text, last.end()) if len(last.group(0)) >= 40 else None
    if tail and (j + 1 >= len(matches) or matches[j + 1].start() >= tail.end()):
        return j, tail.span(1)
    return j, None


def entropy_spans(
    text: str,
    lower: str,
    matches: list[re.Match[str]],
    redact_text: Callable[[str], str],
    password_like: Callable[[str], bool],
) -> Iterator[tuple[int, int]]:
    """(start, end) of unnamed secrets: tokens named by nearby words, very random standalone tokens, base64
    blobs
    and wrapped blocks that decode to secrets. `lower` is `text` lowercased, same length; `matches` its
    `RUNS`."""
    i = 0
    plain_until = -1  # candidates of a block that did not decode are looked at one by one
    while i < len(matches):
        m = matches[i]
        j, tail = _block(text, matches, i) if i > plain_until else (i, None)
        if j > i or tail:
            blob = "".join(x.group(0) for x in matches[i : j + 1]) + (text[tail[0] : tail[1]] if tail else "")
            data = decode(blob)
            plain_until = j
            # A wrapped blob is secret or benign as a whole (a private key, or a certificate, an image, mail).
            if data is not None:
                if holds_secret(data, redact_text, password_like):
                    yield from (x.span() for x in matches[i : j + 1])
                    if tail:
                        yield tail
                i = j + 1
                continue
        i += 1
        token = m.group(0)
        start, end = m.span()
        if "…" in text[end : end + 1]:
            continue  # already masked
        data = decode(token) if len(token) >= 16 else None
        if data is not None and len(data) <= MAX_BINARY:
            if holds_secret(data, redact_text, password_like):
                yield start, end
                continue
            if is_text(data) or is_asn1(data):
                continue  # base64 of text without a secret in it (a JSON payload), of a certificate
        bare = token.rstrip("=")
        if len(bare) > _NAMED_MAX or _DIGEST_PREFIX.match(bare) or not _is_random(bare, hex_ok=True):
            continue  # `_very_random` tokens are a subset of these
        line_start, line_end = _line_bounds(text, start, end)
        if _in_url(text, start, line_start):
            continue
        before = lower[max(line_start, start - 80) : start]
        # a token alone on its line is named by the line above ("$ cat ~/.config/tool/token") or the one below
        # ("^ that's the access token"); each is judged on its own, so a label in one cannot veto the other
        arounds = []
        if not text[line_start:start].strip(" \t\"'`$>"):
            arounds.append(lower[max(0, line_start - 120) : line_start])
        if not text[end:line_end].strip(" \t\"'`,;.)"):
            arounds.append(lower[line_end : line_end + 80])
        is_hex = _HEX.match(bare) is not None
        named = any(_named_by_context(before, around, is_hex) for around in arounds or [""])
        if named or (
            _very_random(bare) and _HASH_LABEL.search(before[-24:]) is None and not _is_key_blob(data)
        ):
            yield start, end


def _is_key_blob(data: bytes | None) -> bool:
    """Public SSH keys and other binary blobs with a length-prefixed type name are not secrets."""
    return data is not None and data.startswith(b"\x00\x00\x00") and b"ssh" in data[:40]
