"""Text normalisation before scanning: NFKC, invisible and bidi characters removed (and counted), homoglyphs and
leetspeak folded to ASCII, spaced-out letters joined — so `ｉɡｎоrе` and `i g n o r e` read as `ignore`."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Zero-width, joiners, word joiner, BOM, soft hyphen, Mongolian vowel separator, tag characters' block, and the
# bidi embedding/override/isolate controls used in "Trojan Source" tricks.
_INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f]")
_BIDI_CHARS = frozenset(c for c in map(chr, range(0x2000, 0x2070)) if _BIDI.match(c))
_HOMOGLYPHS = str.maketrans(
    "аеорсуххіјѕԁɡһӏոԛԝАВЕКМНОРСТХІЈЅοαιкνρτυχεΑΒΕΖΗΙΚΜΝΟΡΤΥΧᎪᏴᏟᎠᎬꓝᏀᎻᎫᏦᏞᎷᏃᏒᏚᎢᏙᏔ",
    "aeopcyxxijsdghlnqwABEKMHOPCTXIJSoaiknptuxeABEZHIKMNOPTYXABCDEFGHJKLMZRSTVW",
)
# The characters _HOMOGLYPHS changes: a text without any is left as it is (translate walks every character).
_HOMOGLYPH_CHARS = re.compile("[" + re.escape("".join(map(chr, _HOMOGLYPHS))) + "]")
_LEET = str.maketrans("013457@$!|", "oieastasil")
# Only words that mix letters with digits or symbols are read as leetspeak; "3.11" and "a | b" stay as they are.
# (Whole runs first, then a linear check inside: one pattern doing both backtracks quadratically on long words.)
_LEET_RUN = re.compile(r"[a-z0-9@$!|]+")
# A digit or symbol beside a letter: found from the digit or symbol (rare in prose, so the regex skips ahead to it)
# rather than tried at every letter; only the run holding it matters (see _deleet).
_LEET_MIX = re.compile(r"[0-9@$!|](?:(?<=[a-z][0-9@$!|])|(?=[a-z]))")
_SPACED = re.compile(r"\b(?:[A-Za-z][ .\-_*]){2,}[A-Za-z]\b")
# What every _SPACED match holds: its first separator, letter, separator and letter, then the end or a character
# that is no word character but `_`. A text without it has no match and skips the sub (tried at every letter).
_SPACED_GATE = re.compile(r"[ .\-_*][A-Za-z][ .\-_*][A-Za-z](?![^\W_])")
# A hyphen between letters; the hyphen first, so the regex skips ahead to hyphens.
_WORD_HYPHEN = re.compile(r"-(?<=[a-z]-)(?=[a-z])")


@dataclass
class Normalized:
    text: str  # NFKC, invisible removed, homoglyphs folded, lowercased
    deleet: str  # the same with digits/symbols read as letters (1gn0r3 -> ignore)
    invisible: int  # how many invisible or bidi characters were removed
    bidi: int
    mixed_script_words: int  # words mixing Latin with Cyrillic/Greek letters


# The characters c with "a" <= c.lower() <= "z": ASCII letters, and İ and K (whose lowercase starts with i, k);
# tests/security/test_normalize_mixed.py checks every code point.
_LATIN = re.compile("[A-Za-z\u0130\u212a]")
# Blocks holding every character named CYRILLIC, GREEK or CHEROKEE ... (the same test checks): a text with none of
# them has no word mixing scripts, and skips the word-by-word look.
_OTHER_SCRIPTS = re.compile(
    "[\u0370-\u052f\u13a0-\u13ff\u1c80-\u1c8f\u1d26-\u1d6a\u1f00-\u1fff\ua640-\ua69f\uab65-\uabbf"
    "\U00010140-\U000101a0\U0001d200-\U0001d245]"
)


def _mixed_script(text: str) -> int:
    """Words mixing Latin letters with Cyrillic, Greek or Cherokee ones. Texts without those scripts are done at
    once; in the others the Latin check (one regex search) comes first, and only words that pass it have their
    non-ASCII characters looked up by name."""
    if text.isascii() or not _OTHER_SCRIPTS.search(text):
        return 0
    n = 0
    for word in re.findall(r"\w*[^\x00-\x7f]\w*", text):
        if _LATIN.search(word) and any(
            unicodedata.name(c, "").startswith(("CYRILLIC", "GREEK", "CHEROKEE")) for c in word if c > "\x7f"
        ):
            n += 1
    return n


_RUN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789@$!|")


def _deleet(lowered: str) -> str:
    """Each _LEET_RUN run that holds a _LEET_MIX match, read as letters. Found from the mix matches, not by a
    call per word: a mix match lies inside one run (the digit or symbol and the letter beside it are run
    characters), so the runs translated are exactly those a per-run check would pick."""
    parts: list[str] = []
    last = 0
    for m in _LEET_MIX.finditer(lowered):
        start = m.start()
        if start < last:
            continue  # inside the run just translated
        while start > last and lowered[start - 1] in _RUN_CHARS:
            start -= 1
        run = _LEET_RUN.match(lowered, start)
        end = run.end() if run else m.end()
        parts += (lowered[last:start], lowered[start:end].translate(_LEET))
        last = end
    if not parts:
        return lowered
    parts.append(lowered[last:])
    return "".join(parts)


def normalize(text: str) -> Normalized:
    # ASCII holds no invisible, bidi or other-script character, and NFKC and the homoglyphs leave it as it is.
    if text.isascii():
        invisible = bidi = mixed = 0
        clean = text
    else:
        hidden = _INVISIBLE.findall(text)  # one character each, and every bidi control is among them
        invisible = len(hidden)
        bidi = sum(1 for c in hidden if c in _BIDI_CHARS)
        mixed = _mixed_script(text)
        clean = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text) if hidden else text)
        if _HOMOGLYPH_CHARS.search(clean):
            clean = clean.translate(_HOMOGLYPHS)
    if _SPACED_GATE.search(clean):
        clean = _SPACED.sub(lambda m: re.sub(r"[ .\-_*]", "", m.group(0)), clean)
    lowered = clean.lower()
    # Hyphens inside words (`dis-regard`) are read away in the second variant only: prose keeps `e-mail`.
    deleet = _WORD_HYPHEN.sub("", _deleet(lowered))
    return Normalized(lowered, deleet, invisible, bidi, mixed)


def strip_invisible(text: str) -> str:
    return _INVISIBLE.sub("", text)
