"""A small learned injection signal: hashed word and word-pair features scored by a logistic model (weights in
injection_model_weights.json, trained by benchmarks/injection_train.py on public corpora other than the ones
benchmarks/injection_public.py evaluates on). Pure Python; a long text is scored by its worst window."""

from __future__ import annotations

import functools
import json
import math
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from grove.security.fast import shortcuts

WEIGHTS_FILE = Path(__file__).with_name("model_weights.json")
# CJK and kana/hangul characters are tokens of their own (no spaces between words there).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\s\w]")
WINDOW = 64  # tokens per window: about two or three sentences
STRIDE = 32
# Past this a text is scored on its first tokens only (a cost bound; the signals still see all of it).
MAX_TOKENS = 200_000


@dataclass(frozen=True)
class Model:
    bias: float
    weights: tuple[float, ...]  # length is a power of two: hashed feature buckets
    dims: int
    shift: float  # "no evidence" below it: the logit that 0.5% of held-out benign training text reaches
    # Below it the model alone is a reason for caution, never for a refusal: above every held-out benign training text
    # and all of grove's own benign corpora (files with no "strong" key: the shift itself).
    strong: float


@dataclass(frozen=True)
class Worst:
    logit: float
    start: int  # character span, in the normalised text, of the window that scored it
    end: int


def tokens(norm_text: str) -> list[str]:
    """Tokens of normalised (lowercased, folded) text: words and single punctuation marks."""
    return TOKEN.findall(norm_text)[:MAX_TOKENS]


def feature_ids(toks: list[str], dims: int) -> list[tuple[int, int]]:
    """Per token: the bucket of the word and of the pair ending at it. crc32 because str hash() is salted."""
    mask = dims - 1
    out = []
    prev = "^"
    for t in toks:
        out.append((zlib.crc32(("u " + t).encode()) & mask, zlib.crc32(f"b {prev} {t}".encode()) & mask))
        prev = t
    return out


def windows(n: int) -> list[tuple[int, int]]:
    """Token ranges scored: the whole text when short, else overlapping windows covering it."""
    if n <= WINDOW:
        return [(0, n)]
    spans = [(s, s + WINDOW) for s in range(0, n - WINDOW + 1, STRIDE)]
    if spans[-1][1] < n:
        spans.append((n - WINDOW, n))
    return spans


@functools.cache
def load(path: Path = WEIGHTS_FILE) -> Model:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        weights = tuple(float(x) for x in raw["weights"])
        bias = float(raw["bias"])
        shift = float(raw["shift"])
        strong = float(raw.get("strong", shift))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RuntimeError(
            f"cannot read the injection model {path}: {e}; rerun benchmarks/injection_train.py"
        ) from e
    dims = len(weights)
    if dims & (dims - 1):
        raise RuntimeError(f"injection model {path} has {dims} weights, not a power of two: retrain it")
    return Model(bias, weights, dims, shift, max(shift, strong))


def worst(norm_text: str, model: Model | None = None) -> Worst:
    """The model's log-odds for the worst window of `norm_text` (already normalised), and where that window is.
    Only windows of prose are scored (see `_varied`): number grids, ASCII art and runs of one repeated token are
    not what the model knows, and it reads anything at all into them."""
    m = model or load()
    toks = TOKEN.findall(norm_text)[:MAX_TOKENS]
    if not toks:
        return Worst(m.bias, 0, 0)
    prefix = _prefix_sums(toks, m)
    # Features are counts scaled by 1/sqrt(window length), as in training. Only windows of prose are scored.
    scored = [(m.bias + (prefix[e] - prefix[s]) / math.sqrt(e - s), s, e) for s, e in windows(len(toks))]
    best, s, e = max(scored)
    if not _varied(toks[s:e]):  # rare: look down the list for the worst window of prose
        best, s, e = next(
            (c for c in sorted(scored, reverse=True) if _varied(toks[c[1] : c[2]])), (m.bias, 0, 0)
        )
        if e == 0:
            return Worst(m.bias, 0, 0)
    # Character offsets of the chosen window only: match objects for every token cost more than the scoring.
    before = _skip(norm_text, 0, s)
    start = _SPACE.match(norm_text, before).end()  # pyright: ignore[reportOptionalMemberAccess]  # \s* always matches
    return Worst(best, start, _skip(norm_text, before, e - s))


# Per token, memoised per process (a collection repeats the same words millions of times): its word weight, its
# UTF-8 bytes, and the CRC-32 of "b <token> ", from which the pair ending at the next token is one crc32 call
# (crc32(b, crc32(a)) == crc32(a + b)). Cleared when full; valid for one weights tuple, kept here so its id
# cannot be reused by another.
_MEMO_TOKENS = 1 << 16
_memo: dict[str, tuple[float, bytes, int]] = {}
_memo_weights: list[tuple[float, ...]] = []


def _prefix_sums(toks: list[str], m: Model) -> list[float]:
    """prefix[i]: the summed word and pair weights of toks[:i], added in the order feature_ids gives them."""
    w, mask, crc = m.weights, m.dims - 1, zlib.crc32
    if not _memo_weights or _memo_weights[0] is not w or len(_memo) > _MEMO_TOKENS:
        _memo.clear()
        _memo_weights[:] = [w]
    memo = _memo if shortcuts.on() else {}
    get = memo.get
    prefix = [0.0]
    append = prefix.append
    acc = 0.0
    state = crc(b"b ^ ")  # the pair before the first token starts at "^"
    for t in toks:
        entry = get(t)
        if entry is None:
            raw = t.encode()
            entry = memo[t] = (w[crc(b"u " + raw) & mask], raw, crc(b"b " + raw + b" "))
        word, raw, after = entry
        acc += word + w[crc(raw, state) & mask]
        append(acc)
        state = after
    return prefix


# A text is tokens and whitespace only: every other character starts a TOKEN match, and no whitespace does. So one
# token with the whitespace before it, taken whole (atomic: never split differently to make a count fit), steps
# over exactly the tokens finditer gives; _skip finds where the k-th token ends without a match object for each.
_ONE = rf"(?>\s*(?:{TOKEN.pattern}))"
_STEPS = [(n, re.compile(f"{_ONE}{{{n}}}")) for n in (1024, 32, 1)]
_SPACE = re.compile(r"\s*")


def _skip(text: str, pos: int, k: int) -> int:
    """Where the k-th token after `pos` ends (k no more than the tokens left)."""
    for n, step in _STEPS:
        while k >= n:
            pos = step.match(text, pos).end()  # pyright: ignore[reportOptionalMemberAccess]  # k tokens are left
            k -= n
    return pos


def _is_word(token: str) -> bool:
    """A word of a sentence: letters only, two or more (or one CJK character)."""
    return token.isalpha() and (len(token) > 1 or token >= "\u2e80")


def _varied(toks: list[str]) -> bool:
    """Words, and no single one more than half of them unless eight others stand beside it: a number grid, ASCII
    art, or `reexport reexport ...` / `ignore ignore` in a bundle's comments is data, which the model (trained on
    sentences) reads as anything at all. A sentence padded with one repeated word still has its own words."""
    counts = Counter(t for t in toks if _is_word(t))
    if not counts:
        return False
    return max(counts.values()) * 2 <= sum(counts.values()) or len(counts) > 8


def logit(norm_text: str, model: Model | None = None) -> float:
    return worst(norm_text, model).logit
