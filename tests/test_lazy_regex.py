"""Patterns compiled on first use (grove.lazy_regex): the same matches as re.compile, and every module's table of
patterns compiles (a typo must fail here, not in a user's run)."""

from __future__ import annotations

import importlib
import marshal
import re
from pathlib import Path

import pytest

import grove
from grove import regex_cache
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
    sources = _repository_patterns()
    for pattern, flags in sources:
        re.compile(pattern, flags)  # raises on a bad pattern
    assert len(sources) > 100  # the secret, command and claim tables at least


def _repository_patterns() -> list[tuple[str, int]]:
    root = Path(grove.__file__).parent
    out: list[tuple[str, int]] = []
    for path in root.rglob("*.py"):
        if "from grove.lazy_regex import later" not in path.read_text(encoding="utf-8"):
            continue
        name = ".".join(("grove", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        for pattern in _lazy_patterns(list(vars(importlib.import_module(name)).values())):
            out.append(pattern._source)
    return out


def test_the_stored_code_is_what_re_compile_makes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache on and off, on every pattern of the repository: a pattern rebuilt from the stored file in a fresh
    process state has the same code, flags and groups as plain re.compile, and finds the same matches."""
    if not regex_cache.enabled():
        pytest.skip("the regex cache is off here (GROVE_REGEX_CACHE=0 or not CPython)")
    monkeypatch.setattr(regex_cache, "cache_file", lambda: tmp_path / "regex.marshal")
    monkeypatch.setattr(regex_cache.sys, "dont_write_bytecode", False)
    monkeypatch.setattr(regex_cache, "_entries", None)
    monkeypatch.setattr(regex_cache, "_added", {})
    sources = _repository_patterns()
    for pattern, flags in sources:
        regex_cache.compile(pattern, flags)
    regex_cache._save()
    monkeypatch.setattr(regex_cache, "_entries", None)  # as a new process: everything from the file
    monkeypatch.setattr(regex_cache, "_added", {})
    stored = regex_cache._stored()
    sample = "I wrote notes.txt and ran `pytest -q`: 12 passed. export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstu rm -rf /"
    for pattern, flags in sources:
        assert stored[(pattern, flags)] == regex_cache.plain_entry(pattern, flags), pattern
        cached, plain = regex_cache.compile(pattern, flags), re.compile(pattern, flags)
        assert (cached.flags, cached.groups, cached.groupindex) == (
            plain.flags,
            plain.groups,
            plain.groupindex,
        )
        assert [m.span() for m in cached.finditer(sample)] == [m.span() for m in plain.finditer(sample)]
    assert regex_cache._added == {}  # nothing was compiled afresh


def test_a_damaged_cache_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not regex_cache.enabled():
        pytest.skip("the regex cache is off here")
    bad = tmp_path / "regex.marshal"
    key = (r"\bab+c\b", 0)
    entry = regex_cache.plain_entry(*key)
    bad.write_bytes(marshal.dumps({key: (entry[0], b"\xff\xff\xff\xff" * 3, *entry[2:])}))
    monkeypatch.setattr(regex_cache, "cache_file", lambda: bad)
    monkeypatch.setattr(regex_cache, "_entries", None)
    monkeypatch.setattr(regex_cache, "_added", {})
    assert regex_cache.compile(*key).search("x abbc y").span() == (2, 6)  # type: ignore[union-attr]


def test_the_switch_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROVE_REGEX_CACHE", "0")
    assert not regex_cache.enabled()
    monkeypatch.setattr(regex_cache, "_added", {})
    regex_cache.compile(r"x(y)z", 0)
    assert regex_cache._added == {}
