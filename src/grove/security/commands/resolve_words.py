"""The word side of the static evaluation: the state of one command line (variables, positional arguments,
files written so far), word expansion, and what echo/printf/heredoc pipelines print when it is knowable."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from pathlib import Path

from grove.lazy_regex import later
from grove.security.commands import paths as P
from grove.security.commands.base import Finding
from grove.security.commands.shell import ParsedCommand, SimpleCommand

DOWNLOADED = "\x00downloaded\x00"  # content fetched from the network: running it is download-and-execute
_VAR = later(
    r"\$\{(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9@*])(?:\[([@*0-9]+)\])?(?:(:?[-=?+])([^}]*))?\}"
    r"|\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?])"
)
_SUBST = later(r"__SUBST(\d+)__")
MAX_READ = 256_000


@dataclass
class Resolution:
    """What the static evaluation found, for the rules to look at."""

    nested: list[str] = field(default_factory=list)  # shell code that will run (resolved commands, scripts)
    code: list[tuple[str, str]] = field(default_factory=list)  # (language, code) run by interpreters
    sql: list[str] = field(default_factory=list)  # SQL text fed to database clients
    findings: list[Finding] = field(default_factory=list)


class State:
    def __init__(self, parsed: ParsedCommand, workspace: str | None, depth: int = 0) -> None:
        self.depth = depth
        self.parsed = parsed
        self.ws = workspace
        self.env: dict[str, str] = {}
        self.positional: list[str] = []
        self.aliases: dict[str, str] = {}
        self.files: dict[str, str | None] = {}  # written in this line: path -> content (None = unknown)
        self.cwd: str | None = None  # after `cd` out of the workspace: where relative paths now point
        self.dirs: list[str | None] = []  # pushd/popd stack
        self.upstream: list[SimpleCommand] = []  # earlier commands of the pipeline being resolved
        self.fed = False  # whether the command being resolved reads a pipe, a heredoc or a file
        self.out = Resolution()

    # --- words
    def expand(self, word: str) -> tuple[str, bool]:
        """The word with known variables and substitutions filled in; False when something stayed unknown."""
        if "$" not in word and "__SUBST" not in word:
            return word, True  # nothing to fill in (most words)
        known = True

        def sub(m: re.Match[str]) -> str:
            nonlocal known
            value = self.subst_output(int(m.group(1)))
            if value is None:
                known = False
                return m.group(0)
            return value.rstrip("\n")

        def var(m: re.Match[str]) -> str:
            nonlocal known
            name = m.group(2) or m.group(6)
            index, op, default = m.group(3), m.group(4), m.group(5)
            if index is not None and index.isdigit() and name in self.env:
                items = self.env[name].split()
                return items[int(index)] if int(index) < len(items) else ""
            if name == "HOME":
                return "~"
            if name == "PWD" and name not in self.env:
                return self.cwd or self.ws or "."
            if name in ("@", "*"):
                return " ".join(self.positional) if self.positional else m.group(0)
            if name.isdigit():
                idx = int(name)
                if 0 < idx <= len(self.positional):
                    return self.positional[idx - 1]
            if name in self.env:
                return self.env[name]
            if op in (":-", "-") and default is not None:
                return default
            known = False
            return m.group(0)

        text = _SUBST.sub(sub, word)
        text = _VAR.sub(var, text)
        return text, known

    def subst_output(self, index: int) -> str | None:
        subs = self.parsed.substitutions
        if index >= len(subs):
            return None
        inner = subs[index]
        if any(c.name == "mktemp" for _, c in inner.walk()):
            return "/tmp/__MKTEMP__"
        if self.depth >= 8:
            return None
        child = State(inner, self.ws, self.depth + 1)  # its placeholders name its own substitutions
        child.env, child.positional, child.cwd = self.env, self.positional, self.cwd
        return static_output(inner, child)

    # --- files
    def read_script(self, path: str) -> str | None:
        """A file the command will run or feed: written earlier in this line, or readable in the workspace."""
        key = path.lstrip("./") if not path.startswith("/") else path
        for written, content in self.files.items():
            if written.lstrip("./") == key or written == path:
                return content
        if self.ws and not P.outside(path, self.ws) and not path.startswith("~"):
            full = Path(self.ws) / path if not path.startswith("/") else Path(path)
            try:
                if full.is_file() and full.stat().st_size <= MAX_READ:
                    return full.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
        return None

    def written_here(self, path: str) -> bool:
        return any(w.lstrip("./") == path.lstrip("./") for w in self.files)

    def unseen(self, path: str, sourced: bool = False) -> bool:
        """A script we cannot read: written here without content, in a shared temp dir, or (run, not sourced)
        elsewhere outside the workspace. Sourcing the user's own files (`. ~/.nvm/nvm.sh`) sets up the shell."""
        if self.written_here(path) or P.is_tmp(path) or path.startswith(("$TMPDIR", "${TMPDIR}")):
            return True
        return not sourced and (P.outside(path, self.ws) or path.startswith("$"))


def static_output(parsed: ParsedCommand, state: State | None = None) -> str | None:
    """What a pipeline of echo/printf/cat-heredoc | base64 -d | rev | tr | xxd -r prints, if it is knowable."""
    if len(parsed.pipelines) != 1:
        return None
    data: str | None = None
    for i, cmd in enumerate(parsed.pipelines[0].commands):
        args = [state.expand(a)[0] if state else a for a in cmd.args]
        if state and any(not state.expand(a)[1] for a in cmd.args):
            return None
        if i == 0:
            data = producer(cmd, args, state)
        elif data is not None:
            data = filter_output(cmd.name, args, data)
        if data is None:
            return None
    return data


def producer(cmd: SimpleCommand, args: list[str], state: State | None = None) -> str | None:
    if cmd.name == "echo":
        flags = set()
        while args and re.fullmatch(r"-[neE]+", args[0]):
            flags |= set(args.pop(0)[1:])
        text = " ".join(args)
        if "e" in flags:
            text = _unescape(text)
        return text + ("" if "n" in flags else "\n")
    if cmd.name == "printf" and args:
        return printf(args[0], args[1:])
    if cmd.name == "git" and args[:2] == ["rev-parse", "--show-toplevel"]:
        return (state.ws if state and state.ws else ".") + "\n"
    if cmd.name == "pwd":
        return "/work/__PWD__\n" if state is None else (state.cwd or state.ws or ".") + "\n"
    if cmd.name in ("cat", "tee") and not args and cmd.stdin_text is not None:
        return cmd.stdin_text
    if cmd.stdin_text is not None and cmd.name in ("base64", "rev", "tr", "xxd"):
        return filter_output(cmd.name, args, cmd.stdin_text)
    return None


def _unescape(text: str) -> str:
    text = re.sub(r"\\([0-7]{1,3})", lambda m: chr(int(m.group(1), 8)), text)
    try:
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return text


def printf(fmt: str, args: list[str]) -> str:
    fmt = _unescape(fmt)
    pieces = re.split(r"(%[-0-9.]*[sdbqc%])", fmt)
    n_specs = sum(1 for p in pieces if p.startswith("%") and p != "%%")
    out, queue = "", list(args)
    while True:
        for p in pieces:
            if p == "%%":
                out += "%"
            elif p.startswith("%") and len(p) > 1:
                value = queue.pop(0) if queue else ""
                out += _unescape(value) if p.endswith("b") else value
            else:
                out += p
        if not queue or n_specs == 0:
            return out


def filter_output(name: str, args: list[str], data: str) -> str | None:
    try:
        if name in ("base64", "base32") and {"-d", "--decode", "-D"} & set(args):
            raw = base64.b64decode(data.strip()) if name == "base64" else base64.b32decode(data.strip())
            return raw.decode("utf-8", errors="replace")
        if name == "rev":
            return "\n".join(line[::-1] for line in data.rstrip("\n").split("\n")) + "\n"
        if name == "xxd" and any(a.startswith("-r") for a in args):
            return binascii.unhexlify(re.sub(r"\s", "", data)).decode("utf-8", errors="replace")
        if name == "tr" and len(args) == 2 and not args[0].startswith("-"):
            src, dst = _tr_set(args[0]), _tr_set(args[1])
            if src and dst:
                dst = dst + dst[-1] * (len(src) - len(dst))
                return data.translate(str.maketrans(src, dst[: len(src)]))
        if name in ("cat", "tee", "head", "tail") and not [a for a in args if not a.startswith("-")]:
            return data
    except (ValueError, binascii.Error):
        return None
    return None


def _tr_set(spec: str) -> str:
    return re.sub(
        r"(.)-(.)", lambda m: "".join(chr(c) for c in range(ord(m.group(1)), ord(m.group(2)) + 1)), spec
    )
