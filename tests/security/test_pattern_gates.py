"""The text patterns' needs (skill_file._NEEDS), now holding each pattern's core as a regex over the folded
lowercase, still skip only texts the pattern cannot match: random texts built from the patterns' own words."""

from __future__ import annotations

import random

import pytest

from grove.security.skill_scan import file as sf

_WORDS = [
    "exec", "EVAL", "eval(", "exec (", "base64.b64decode(", "codecs.decode", "zlib.decompress", "bytes.fromhex",
    "__import__('base64')", "atob(", "Buffer.from(x, 'base64')", "| base64 -d |", "|xxd -r -p|", "sh", "bash",
    "re-create", "reinstall", "Restore", "copy", "this", "skill", "yourself", "itſelf", "then", "to", "please",
    "edit", "modify", "patch", "overwrite", "all", "every", "other", "skills", "skİlls", "save", "write", "store",
    "remember", "into", "in", "memory", "MEMORY.md", "USER.md", "always", "approve", "never", "ask", "approvals",
    "are", "off", "trusted", "curl", "wget", "nc", "$", "${", "OPENAI_API_KEY", "TOKEN", "MY_SECRET", "PASSWORD",
    ".", "!", ",", ":", "-",
]  # fmt: skip
_SEPARATORS = [" ", "  ", "\t", "\n", "", " \u00a0", "\r\n"]


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(_WORDS) + rng.choice(_SEPARATORS) for _ in range(rng.randrange(2, 9)))
        for _ in range(n)
    ]


@pytest.mark.parametrize("seed", range(3))
def test_needs_never_skip_a_text_the_pattern_matches(seed: int) -> None:
    matched = 0
    for text in _texts(seed, 30000):
        low = sf.folded_lower(text)
        for why, _, pattern in sf._TEXT_PATTERNS:
            if pattern.search(text):
                matched += 1
                assert sf.may_match(why, low), (why, text)
    assert matched > 300  # the texts do reach the patterns


def test_the_core_regexes_are_used() -> None:
    # words present, not in the pattern's order: skipped without the pattern's search
    low = sf.folded_lower("Copy the file. The skill checks itself. Edit other files; every skill is fine.")
    assert not sf.may_match("persistence: tells the agent to reinstall or spread itself", low)
    assert sf.may_match("persistence: tells the agent to reinstall or spread itself", "then copy  itself")
