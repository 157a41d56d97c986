"""A compiled-pattern cache across processes, like Python's own bytecode cache: `re`'s parser and compiler are pure
Python (~0.2 ms a pattern, ~10 ms for the claim checker's tables), the engine's code they produce is plain data.

`compile(pattern, flags)` returns exactly what `re.compile` does. The code of each pattern compiled here is stored
in grove's `__pycache__` (the same place and trust as its .pyc files, never in grove's home or a workspace), keyed
by the interpreter's cache tag and the engine's magic number, and handed back to the engine (`_sre.compile`, which
validates it) in the next process. GROVE_REGEX_CACHE=0, a read-only install or PYTHONDONTWRITEBYTECODE: plain
`re.compile` (nothing stored). tests/test_lazy_regex.py compares both paths on every pattern of the repository.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import marshal
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

try:  # the engine's own entry point and the stages `re.compile` runs before it (CPython; private, so no stubs)
    import _sre  # pyright: ignore[reportMissingImports]
    from re import _compiler, _parser  # pyright: ignore[reportAttributeAccessIssue]
except ImportError:  # another implementation: plain re.compile
    _sre = None

Entry = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]

_ENV = "GROVE_REGEX_CACHE"
_TYPECODE = "I"


def enabled() -> bool:
    """The one switch: on unless GROVE_REGEX_CACHE=0, and only where CPython's engine takes stored code."""
    return (
        _sre is not None
        and os.environ.get(_ENV, "1").strip() != "0"
        and array.array(_TYPECODE).itemsize == _sre.CODESIZE
    )


def cache_file() -> Path:
    tag = sys.implementation.cache_tag or "python"
    return Path(__file__).parent / "__pycache__" / f"regex_cache.{tag}.{getattr(_sre, 'MAGIC', 0)}.marshal"


_lock = threading.Lock()
_entries: dict[tuple[str, int], Entry] | None = None
_added: dict[tuple[str, int], Entry] = {}


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, through the stored code when there is some."""
    if not enabled():
        return re.compile(pattern, flags)
    key = (pattern, flags)
    entry = _stored().get(key)
    if entry is not None:
        try:
            return _from_entry(pattern, entry)
        except (TypeError, ValueError, RuntimeError):  # a damaged or foreign entry: compile it afresh
            pass
    try:
        entry = _entry(pattern, flags)
        compiled = _from_entry(pattern, entry)
    except re.error:
        raise  # a bad pattern: the same error re.compile gives
    except Exception:  # an interpreter whose re internals differ: the plain path, nothing stored
        return re.compile(pattern, flags)
    with _lock:
        if not _added:
            atexit.register(_save)
        _added[key] = entry
    return compiled


def plain_entry(pattern: str, flags: int) -> Entry:
    """What `re.compile` hands the engine for this pattern (the tests compare stored entries against it)."""
    return _entry(pattern, flags)


def _entry(pattern: str, flags: int) -> Entry:
    """The same steps as re._compiler.compile, keeping what it gives `_sre.compile`."""
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (
        flags | parsed.state.flags,
        array.array(_TYPECODE, code).tobytes(),
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )


def _from_entry(pattern: str, entry: Entry) -> re.Pattern[str]:
    flags, code, groups, groupindex, indexgroup = entry
    words = array.array(_TYPECODE)
    words.frombytes(code)
    # (reached only where enabled(), which needs the engine)
    return _sre.compile(pattern, flags, words.tolist(), groups, groupindex, indexgroup)  # pyright: ignore[reportOptionalMemberAccess]


def _stored() -> dict[tuple[str, int], Entry]:
    global _entries
    if _entries is None:
        with _lock:
            if _entries is None:
                _entries = _read(cache_file())
    return _entries


def _read(path: Path) -> dict[tuple[str, int], Entry]:
    try:
        data: Any = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def _save() -> None:
    """Add this process's new entries to the file (atomically: another grove may be writing it too)."""
    if sys.dont_write_bytecode or not _added:
        return
    path = cache_file()
    with contextlib.suppress(OSError):
        merged = {**_read(path), **_added}
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(marshal.dumps(merged))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
