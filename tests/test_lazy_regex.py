"""Patterns compiled on first use (grove.lazy_regex): the same matches as re.compile, and every module's table of
patterns compiles (a typo must fail here, not in a user's run)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import grove
from grove.lazy_regex import _Later, later


def test_a_later_pattern_matches_like_re_compile() -> None:
    source, flags = r"\b(sk|pk)_(live|test)_(?P<rest>\w{4,})", re.I
    now, lazy = re.compile(source, flags), later(source, flags)
    text = "keys: SK_live_abcd1234 and pk_test_zz and pk_test_wxyz9"
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in now.finditer(text)]
    assert lazy.search(text).group("rest") == now.search(text).group("rest")  # type: ignore[union-attr]
    assert lazy.sub("<k>", text) == now.sub("<k>", text)
    assert lazy.pattern == source and lazy.flags == now.flags and lazy.groups == now.groups


def test_nothing_compiles_before_first_use() -> None:
    lazy = later(r"(unclosed")  # a bad pattern costs nothing until used, then fails as re.compile would
    with pytest.raises(re.error):
        lazy.search("x")


def _lazy_patterns(value: object, depth: int = 0) -> list[_Later]:
    if isinstance(value, _Later):
        return [value]
    if depth > 2 or isinstance(value, (str, bytes)):
        return []
    if isinstance(value, dict):
        return [p for v in value.values() for p in _lazy_patterns(v, depth + 1)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [p for v in value for p in _lazy_patterns(v, depth + 1)]
    return []


def test_every_modules_patterns_compile() -> None:
    root = Path(grove.__file__).parent
    users = [
        f for f in root.rglob("*.py") if "from grove.lazy_regex import later" in f.read_text(encoding="utf-8")
    ]
    found = 0
    for path in users:
        name = ".".join(("grove", *path.relative_to(root).with_suffix("").parts))
        module = importlib.import_module(name.removesuffix(".__init__"))
        for pattern in _lazy_patterns(list(vars(module).values())):
            pattern.search("")  # compiles it; raises on a bad pattern
            found += 1
    assert found > 100  # the secret, command and claim tables at least
