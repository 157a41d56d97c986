"""The CLI's error contract: any failure a user can cause becomes one `grove: ...` line and an exit code
(2 usage or configuration, 1 runtime, 130 interrupted) instead of a traceback."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

USAGE, RUNTIME, INTERRUPTED = 2, 1, 130
_CONFIG_KINDS = ("auth", "model_not_found")  # a ModelError the user fixes in settings, not by retrying


def _home() -> Path:
    from grove.config import grove_home

    return grove_home()


def _home_hint(problem: str) -> str:
    home = _home()
    return (
        f"{problem}; grove keeps its state in GROVE_HOME ({home}), which must be a writable directory: "
        "fix its permissions, or point GROVE_HOME at one (export GROVE_HOME=~/.grove)"
    )


def _under_home(path: str | None) -> bool:
    if not path:
        return False
    home = _home()
    p = Path(path)
    return p == home or home in p.parents or p in home.parents


def explain(exc: BaseException) -> tuple[str, int] | None:
    """(message, exit code) for an error the user can act on; None for a bug (then the traceback is the report)."""
    from grove.errors import GroveError
    from grove.llm.errors import ModelError

    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", INTERRUPTED
    if isinstance(exc, GroveError):
        return str(exc), USAGE
    if isinstance(exc, ModelError):
        code = USAGE if exc.kind.value in _CONFIG_KINDS else RUNTIME
        message = str(exc)
        # the local model is the default when no key is set: its install hint also names the hosted way out
        if 'grove-agent[local]"' in exc.message:
            from grove.config import KEY_ENVS

            keys = ", ".join(sorted(set(KEY_ENVS.values())))
            message += f"; or use a hosted model: export one of {keys} (grove picks it up)"
        return message, code
    if isinstance(exc, sqlite3.Error):  # state.db: unopenable (odd home) or read-only
        return _home_hint(f"the session store cannot be used ({exc})"), USAGE
    if isinstance(exc, OSError):
        where = exc.filename if isinstance(exc.filename, str) else None
        what = f"{exc.strerror or exc}: {where}" if where else str(exc.strerror or exc)
        if _under_home(where) or exc.errno in (errno.EROFS, errno.ENOSPC, errno.EDQUOT):
            return _home_hint(what), USAGE
        return f"{what}; check the path and its permissions", RUNTIME
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is a base dependency
        return None
    if isinstance(exc, yaml.YAMLError):
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return f"a YAML file (config, script model or skill) is malformed{at}: {problem}; fix it", USAGE
    return None
