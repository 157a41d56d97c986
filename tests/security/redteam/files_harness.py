"""Runs the frozen file-tool attempts (files_attempts.yaml) in a fresh arena and says what escaped.

Shared by tests/security/test_redteam_files.py and benchmarks/security_files.py, so both judge the same way."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CORPUS = Path(__file__).parent / "files_attempts.yaml"
POSTBUILD = Path(__file__).parent / "files_attempts_postbuild.yaml"
ENV_VAR, ENV_SECRET = "GROVE_RT_SECRET", "ENV_SECRET_7f3a9c"
SANDBOX_GID = 64_055
MODES = ("unattended", "deny", "approve", "off")
# markers that must never leave grove's home or its environment, whatever was approved
HARD_MARKERS = ("HOME_SECRET_CONFIG", "HOME_SECRET_DB", "HOME_SECRET_HISTORY", ENV_SECRET)
SOFT_MARKERS = ("OUTSIDE_SECRET", "USERHOME_SECRET", "HOME_SECRET", "root:x:0:0")


@dataclass(frozen=True)
class Attempt:
    id: str
    tool: str
    args: dict[str, Any]
    setup: list[dict[str, Any]] = field(default_factory=list)
    race: dict[str, Any] | None = None
    leak_if_ok: bool = False
    home_in_ws: bool = False
    needs_root: bool = False
    heldout: bool = False


def load_attempts(path: Path = CORPUS) -> list[Attempt]:
    return [Attempt(**raw) for raw in yaml.safe_load(path.read_text(encoding="utf-8"))]


@dataclass
class Arena:
    tmp: Path
    ws: Path
    outside: Path
    home: Path
    userhome: Path
    uniq: str

    def fill(self, text: str) -> str:
        values = {
            "ws": str(self.ws),
            "outside": str(self.outside),
            "home": str(self.home),
            "homename": self.home.name,
            "userhome": str(self.userhome),
            "tmp": str(self.tmp),
            "pid": str(os.getpid()),
            "uniq": self.uniq,
            "dotdot300": "../" * 300,
            "a5000": "a" * 5000,
            "a300": "a" * 300,
        }
        for key, value in values.items():
            text = text.replace("{" + key + "}", value)
        return text

    def watched(self) -> list[Path]:
        """Everything outside the workspace an attempt could change (grove's home apart)."""
        extra = (
            [p for p in Path("/dev/shm").glob(f"grove-rt-{self.uniq}*")] if Path("/dev/shm").is_dir() else []
        )
        extra += list(Path("/dev").glob(f"grove-rt-{self.uniq}*"))
        return [self.outside, self.userhome, *extra]


def build_arena(base: Path, home_in_ws: bool = False) -> Arena:
    base.mkdir(parents=True, exist_ok=True)
    ws = base / "ws"
    ws.mkdir()
    (ws / "sub").mkdir()
    (ws / "readme.md").write_text("# project\nhello\n")
    outside = base / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text("OUTSIDE_SECRET_1\n")
    (outside / "dir" / "inner.txt").write_text("OUTSIDE_SECRET_2\n")
    (outside / "root_only.txt").write_text("OUTSIDE_SECRET_ROOTONLY\n")
    os.chmod(outside / "root_only.txt", 0o600)
    home = ws / ".grove" if home_in_ws else base / "grove-home"
    (home / "skills" / "demo").mkdir(parents=True)
    (home / "memory").mkdir()
    (home / "cache").mkdir()
    (home / "config.yaml").write_text("# HOME_SECRET_CONFIG\nsecurity:\n  approval_mode: manual\n")
    (home / "state.db").write_text("HOME_SECRET_DB\n")
    (home / "chat_history").write_text("HOME_SECRET_HISTORY\n")
    (home / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\n---\nHOME_SECRET_SKILL\n")
    (home / "memory" / "MEMORY.md").write_text("HOME_SECRET_MEMORY\n")
    (home / "cache" / "settings.json").write_text('{"HOME_SECRET_CACHE": 1}')
    userhome = base / "userhome"
    (userhome / ".ssh").mkdir(parents=True)
    (userhome / ".bashrc").write_text("USERHOME_SECRET_BASHRC\n")
    (userhome / ".ssh" / "id_rsa").write_text("USERHOME_SECRET_KEY\n")
    if os.geteuid() == 0:
        # as the README asks root users to: the sandbox group may write the project
        for dirpath, dirnames, filenames in os.walk(ws):
            for name in [*dirnames, *filenames, ""]:
                p = os.path.join(dirpath, name) if name else dirpath
                if home_in_ws and p.startswith(str(home)):
                    continue
                os.chown(p, -1, SANDBOX_GID)
                os.chmod(p, os.stat(p).st_mode | (0o2070 if os.path.isdir(p) else 0o060))
    return Arena(base, ws, outside, home, userhome, hashlib.sha1(str(base).encode()).hexdigest()[:10])


def apply_setup(arena: Arena, ops: list[dict[str, Any]]) -> None:
    for op in ops:
        ((kind, value),) = op.items()
        if kind == "symlink":
            link, target = value
            os.symlink(arena.fill(target), arena.ws / link)
        elif kind == "hardlink":
            link, target = value
            os.link(arena.fill(target), arena.ws / link)
        elif kind == "file":
            path, content, mode = value
            p = Path(arena.fill(path))
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)
            os.chmod(p, int(mode, 0) if isinstance(mode, str) else mode)
        elif kind == "dir":
            Path(arena.fill(value)).mkdir(parents=True, exist_ok=True)
        elif kind == "fifo":
            os.mkfifo(arena.fill(value))
        elif kind == "chardev":
            os.mknod(arena.fill(value), stat.S_IFCHR | 0o666, os.makedev(1, 3))
        else:
            raise ValueError(f"unknown setup op {kind!r}")


def snapshot(roots: list[Path]) -> dict[str, tuple]:
    """Type, mode, inode and content hash of everything under `roots` (links not followed)."""
    out: dict[str, tuple] = {}
    for root in roots:
        if not os.path.lexists(root):
            continue
        paths = [str(root)]
        if root.is_dir() and not root.is_symlink():
            for dirpath, dirnames, filenames in os.walk(root):
                paths += [os.path.join(dirpath, n) for n in dirnames + filenames]
        for p in paths:
            st = os.lstat(p)
            digest = ""
            if stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(Path(p).read_bytes()).hexdigest()
            out[p] = (stat.S_IFMT(st.st_mode), st.st_mode & 0o7777, st.st_ino, digest)
    return out


@dataclass
class Outcome:
    attempt: str
    mode: str
    escaped: list[str] = field(default_factory=list)  # why it counts as an escape (empty = held)
    setuid: list[str] = field(default_factory=list)  # setuid/setgid files the tools wrote
    home_writes: list[str] = field(default_factory=list)
    hard_leaks: list[str] = field(default_factory=list)  # config/state.db/environ content in the output
    special: list[str] = field(default_factory=list)  # FIFOs/devices replaced or written
    crashed: str = ""  # an exception that is not a ToolError
    hung: bool = False
    result: str = ""


@contextmanager
def flipping(arena: Arena, race: dict[str, Any]) -> Iterator[None]:
    """A thread swaps `path` between a real folder/file and a symlink to `target` until the block ends."""
    path = arena.ws / race["path"]
    target = arena.fill(race["target"])
    if race["kind"] == "dir":
        path.mkdir(exist_ok=True)
    elif not path.exists():
        path.write_text("benign\n")
    aside = path.with_name(path.name + ".aside")
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            try:
                os.rename(path, aside)
                os.symlink(target, path)
                time.sleep(0)
                os.unlink(path)
                os.rename(aside, path)
            except OSError:
                pass

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


def run_attempt(
    attempt: Attempt,
    base: Path,
    mode: str,
    call: Callable[[Arena, str, str, dict[str, Any]], str],
    timeout: float = 8.0,
) -> Outcome:
    """Build an arena under `base`, run the attempt through `call(arena, mode, tool, args)`, judge it.

    `call` returns the tool's text; a ToolError (or any error it maps to a string starting 'error:') is a refusal."""
    arena = build_arena(base, attempt.home_in_ws)
    apply_setup(arena, attempt.setup)
    args = {k: arena.fill(v) if isinstance(v, str) else v for k, v in attempt.args.items()}
    watched_before = snapshot(arena.watched())
    home_before = snapshot([arena.home])
    ws_before = snapshot([arena.ws])
    out = Outcome(attempt.id, mode)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            repeat = attempt.race["repeat"] if attempt.race else 1
            texts = []
            for _ in range(repeat):
                texts.append(call(arena, mode, attempt.tool, dict(args)))
            box["texts"] = texts
        except BaseException as e:
            box["crash"] = f"{type(e).__name__}: {e}"[:300]

    if attempt.race:
        with flipping(arena, attempt.race):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            thread.join(timeout)
    else:
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(timeout)
    if thread.is_alive():
        out.hung = True
        _unblock_fifos(arena)
        thread.join(2)
    texts: list[str] = box.get("texts", [])
    out.crashed = box.get("crash", "")
    out.result = (texts[0] if texts else out.crashed)[:300]
    joined = "\n".join(texts)
    refused_all = all(t.startswith("error:") for t in texts) if texts else True
    soft = mode in ("unattended", "deny")

    changed = _diff(watched_before, snapshot(arena.watched()))
    # new files in /dev/shm or /dev appear only after the attempt
    changed += [str(p) for p in arena.watched()[2:] if str(p) not in watched_before]
    if soft and changed:
        out.escaped.append(f"changed outside: {sorted(set(changed))[:3]}")
    for marker in SOFT_MARKERS:
        if soft and marker in joined:
            out.escaped.append(f"output holds {marker}")
    if soft and attempt.leak_if_ok and not refused_all:
        out.escaped.append("a read outside the workspace succeeded")
    for marker in HARD_MARKERS:
        if marker in joined:
            out.hard_leaks.append(marker)
    out.home_writes = _diff(home_before, snapshot([arena.home]))
    ws_after = snapshot([arena.ws])
    for p, (kind, perm, ino, digest) in {**ws_after, **snapshot([arena.outside])}.items():
        if kind == stat.S_IFREG and perm & 0o6000 and ws_before.get(p, (None,))[2:] != (ino, digest):
            out.setuid.append(p)
    for p, before in ws_before.items():
        if before[0] in (stat.S_IFIFO, stat.S_IFCHR) and ws_after.get(p) != before:
            out.special.append(p)
    for p in arena.watched()[2:]:
        if os.path.lexists(p):
            os.unlink(p)
    return out


def _diff(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def _unblock_fifos(arena: Arena) -> None:
    """Open every FIFO of the workspace for writing, so a reader stuck on one returns."""
    for dirpath, _dirs, filenames in os.walk(arena.ws):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if stat.S_ISFIFO(os.lstat(p).st_mode):
                try:
                    fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
                    os.close(fd)
                except OSError:
                    pass


def clean(base: Path) -> None:
    shutil.rmtree(base, ignore_errors=True)
