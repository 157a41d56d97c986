"""How grove starts its own Python (background review, curator, kanban workers): isolated (`python -I`), in a
folder of grove's choosing, with an allow-listed environment, so nothing the agent wrote (a `json.py` in the
workspace, a `sitecustomize.py`, a PYTHONPATH) is imported by a process that runs outside any sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

# what a grove process needs from its parent's environment; everything else (PYTHONPATH, PYTHONSTARTUP,
# LD_PRELOAD, BASH_ENV, ...) is left behind; LD_LIBRARY_PATH is filtered below
KEEP = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TERM",
        "NO_COLOR",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "no_proxy",
        "all_proxy",
    }
)
KEEP_PREFIXES = ("GROVE_", "LC_")
# provider keys and endpoints grove reads (ANTHROPIC_API_KEY, OPENAI_BASE_URL, a provider's own key_env)
KEEP_SUFFIXES = ("_API_KEY", "_BASE_URL")


def clean_env(
    extra: Mapping[str, str] | None = None, keep: Iterable[str] = (), source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The allow-listed part of `source` (default os.environ), plus names in `keep`, plus `extra`."""
    source = os.environ if source is None else source
    wanted = KEEP | set(keep)
    env = {
        name: value
        for name, value in source.items()
        if name in wanted or name.startswith(KEEP_PREFIXES) or name.endswith(KEEP_SUFFIXES)
    }
    # a Python built with a shared libpython may need LD_LIBRARY_PATH to start at all; only its absolute
    # entries pass (an empty or relative one means the current folder)
    libs = [p for p in source.get("LD_LIBRARY_PATH", "").split(os.pathsep) if os.path.isabs(p)]
    if libs:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(libs)
    env.update(extra or {})
    return env


def python_argv(args: Sequence[str]) -> list[str]:
    """This interpreter, isolated: no script folder or cwd on sys.path, no PYTHON* variables, no user site."""
    return [sys.executable, "-I", *args]


def spawn_python(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    keep: Iterable[str] = (),
    **popen: Any,
) -> subprocess.Popen:
    """Starts `python -I ARGS` in `cwd` (grove's home, made private if missing) with clean_env(env, keep)."""
    cwd = Path(cwd)
    cwd.mkdir(parents=True, exist_ok=True, mode=0o700)
    return subprocess.Popen(python_argv(args), cwd=cwd, env=clean_env(env, keep), **popen)
