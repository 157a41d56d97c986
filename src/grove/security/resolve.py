"""What really runs: a small static evaluation of a parsed command line. Variables, aliases, functions, `$(printf
...)`-style substitutions, heredocs and here-strings, pipes, files written earlier in the same line, `xargs` and
`eval` are followed, so `a=rm; $a -rf ~` reads as `rm -rf ~`. What cannot be followed is reported as unknown."""

from __future__ import annotations

import base64
import binascii
import os
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from grove.security import paths as P
from grove.security.command_base import FETCHERS, Finding
from grove.security.shell import SHELLS, ParsedCommand, SimpleCommand

DOWNLOADED = "\x00downloaded\x00"  # content fetched from the network: running it is download-and-execute
_VAR = re.compile(
    r"\$\{(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9@*])(?:\[([@*0-9]+)\])?(?:(:?[-=?+])([^}]*))?\}"
    r"|\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?])"
)
_SUBST = re.compile(r"__SUBST(\d+)__")
INTERPRETER_LANGS = {"python": "python", "perl": "perl", "node": "js", "nodejs": "js", "deno": "js", "bun": "js",
                     "ruby": "ruby", "php": "php", "awk": "awk", "gawk": "awk", "mawk": "awk", "lua": "lua",
                     "luajit": "lua", "Rscript": "r", "julia": "julia", "pwsh": "pwsh", "powershell": "pwsh",
                     "osascript": "applescript", "tclsh": "tcl", "groovy": "groovy"}  # fmt: skip
_CODE_FLAGS = {"python": ("-c",), "perl": ("-e", "-E"), "js": ("-e", "--eval", "-p", "--print"),
               "ruby": ("-e",), "php": ("-r",), "lua": ("-e",), "r": ("-e",), "julia": ("-e",),
               "pwsh": ("-c", "-Command", "-command"), "applescript": ("-e",), "groovy": ("-e",)}  # fmt: skip
_DESTROYERS = {"rm", "shred", "unlink", "rmdir", "srm", "wipe", "truncate", "mv", "chmod", "chown", "dd"}
_DB_CLIENTS = {"sqlite3", "psql", "mysql", "mariadb", "duckdb", "sqlcmd", "clickhouse-client", "cockroach"}
_SQL_NAME_HINT = re.compile(r"drop|wipe|truncate|purge|reset|destroy|delete|nuke|clean", re.I)
MAX_READ = 256_000


@dataclass
class Resolution:
    """What the static evaluation found, for the rules to look at."""

    nested: list[str] = field(default_factory=list)  # shell code that will run (resolved commands, scripts)
    code: list[tuple[str, str]] = field(default_factory=list)  # (language, code) run by interpreters
    sql: list[str] = field(default_factory=list)  # SQL text fed to database clients
    findings: list[Finding] = field(default_factory=list)


def _lang(name: str) -> str | None:
    base = re.sub(r"[\d.]+$", "", name)
    return INTERPRETER_LANGS.get(base)


class _State:
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
        child = _State(inner, self.ws, self.depth + 1)  # its placeholders name its own substitutions
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


def static_output(parsed: ParsedCommand, state: _State | None = None) -> str | None:
    """What a pipeline of echo/printf/cat-heredoc | base64 -d | rev | tr | xxd -r prints, if it is knowable."""
    if len(parsed.pipelines) != 1:
        return None
    data: str | None = None
    for i, cmd in enumerate(parsed.pipelines[0].commands):
        args = [state.expand(a)[0] if state else a for a in cmd.args]
        if state and any(not state.expand(a)[1] for a in cmd.args):
            return None
        if i == 0:
            data = _producer(cmd, args, state)
        elif data is not None:
            data = _filter(cmd.name, args, data)
        if data is None:
            return None
    return data


def _producer(cmd: SimpleCommand, args: list[str], state: _State | None = None) -> str | None:
    if cmd.name == "echo":
        flags = set()
        while args and re.fullmatch(r"-[neE]+", args[0]):
            flags |= set(args.pop(0)[1:])
        text = " ".join(args)
        if "e" in flags:
            text = _unescape(text)
        return text + ("" if "n" in flags else "\n")
    if cmd.name == "printf" and args:
        return _printf(args[0], args[1:])
    if cmd.name == "git" and args[:2] == ["rev-parse", "--show-toplevel"]:
        return (state.ws if state and state.ws else ".") + "\n"
    if cmd.name == "pwd":
        return "/work/__PWD__\n" if state is None else (state.cwd or state.ws or ".") + "\n"
    if cmd.name in ("cat", "tee") and not args and cmd.stdin_text is not None:
        return cmd.stdin_text
    if cmd.stdin_text is not None and cmd.name in ("base64", "rev", "tr", "xxd"):
        return _filter(cmd.name, args, cmd.stdin_text)
    return None


def _unescape(text: str) -> str:
    text = re.sub(r"\\([0-7]{1,3})", lambda m: chr(int(m.group(1), 8)), text)
    try:
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return text


def _printf(fmt: str, args: list[str]) -> str:
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


def _filter(name: str, args: list[str], data: str) -> str | None:
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


def resolve(parsed: ParsedCommand, workspace: str | None = None) -> Resolution:
    """Follow what runs in `parsed` (top level, in order); nested substitutions are resolved by their own call."""
    state = _State(parsed, workspace)
    for pipe in parsed.pipelines:
        previous_out: str | None = None
        previous: SimpleCommand | None = None
        for i, cmd in enumerate(pipe.commands):
            state.upstream = pipe.commands[:i]
            state.fed = bool(i) or cmd.stdin_text is not None or any(op == "<" for op, _ in cmd.redirects)
            stdin = cmd.stdin_text if cmd.stdin_text is not None else previous_out
            for op, target in cmd.redirects:
                if op == "<":
                    stdin = state.read_script(state.expand(target)[0])
            upstream_fetch = previous is not None and previous.name in FETCHERS
            if upstream_fetch:
                stdin = DOWNLOADED
            out = _one(state, cmd, stdin, previous)
            previous_out, previous = out, cmd
    return state.out


def _one(state: _State, cmd: SimpleCommand, stdin: str | None, upstream: SimpleCommand | None) -> str | None:
    """Resolve one simple command; return what it prints when that is knowable (for the next in the pipe)."""
    res = state.out
    if not cmd.argv:
        for key, value in cmd.assignments.items():
            expanded, known = state.expand(value)
            state.env[key] = expanded if known else value
        _record_writes(state, cmd, None)
        return None
    name = cmd.argv[0]
    original = list(cmd.argv)
    expanded = [state.expand(w) for w in cmd.argv]
    argv = [w for w, _ in expanded]
    dynamic_name = "$" in name or "__SUBST" in name
    if dynamic_name:
        if expanded[0][1] and argv[0].strip():
            ifs = state.env.get("IFS", " \t\n") or " "
            words = [w for w in re.split(f"[{re.escape(ifs)}]+", argv[0]) if w]
            res.nested.append(" ".join(shlex.quote(w) for w in [*words, *argv[1:]]))
        else:
            if (
                len(argv) > 2 and argv[1] == "-c"
            ):  # `$SHELL -c '...'`: whatever the shell, the script is known
                res.nested.append(argv[2])
            res.findings.append(
                Finding(
                    "unknown-command",
                    f"runs a command whose name is computed at run time ({name})",
                    effect="unknown",
                    unknown=True,
                )
            )
        return None
    if (
        " " in name.strip() or "\n" in name
    ):  # `watch 'a b'`, `sudo "a b"`: a wrapper hands the string to a shell
        res.nested.append(" ".join([name, *(shlex.quote(a) for a in argv[1:])]))
        return None
    later = _runs_later(cmd.name, argv[1:], cmd.raw_argv)
    if later is not None:
        res.nested += later
    if name in ("cd", "pushd", "popd"):
        _chdir(state, name, argv[1:])
        return None
    if state.cwd is not None and name not in ("echo", "printf", "git"):
        for i in range(1, len(cmd.argv)):  # relative paths now point outside the workspace
            a = cmd.argv[i]
            if a and not a.startswith(("-", "/", "~", "$")) and "=" not in a and "://" not in a:
                cmd.argv[i] = posixpath.join(state.cwd, a)
                expanded[i] = (cmd.argv[i], expanded[i][1])
                argv[i] = (
                    posixpath.join(state.cwd, argv[i]) if not argv[i].startswith(("/", "~")) else argv[i]
                )
    if name in _DESTROYERS and name not in ("chmod", "chown", "mv"):
        hidden = [w for (w, known), raw in zip(expanded[1:], cmd.argv[1:], strict=True)
                  if not known and not raw.startswith("-")]  # fmt: skip
        if hidden:
            res.findings.append(
                Finding(
                    "unknown-target",
                    f"{name} acts on {hidden[0]}, a path only known at run time",
                    effect="unknown",
                    unknown=True,
                )
            )
    if name == "read" and stdin is not None and stdin != DOWNLOADED:
        names = [a for a in argv[1:] if re.fullmatch(r"[A-Za-z_]\w*", a)]
        values = stdin.split("\n", 1)[0].split(None, max(len(names) - 1, 0))
        for i, key in enumerate(names):
            state.env[key] = values[i] if i < len(values) else ""
        return None
    if name == "printf" and len(argv) > 3 and argv[1] == "-v":
        state.env[argv[2]] = _printf(argv[3], argv[4:])
        return None
    if name == "set" and cmd.args[:1] == ["--"]:
        state.positional = argv[2:]
        return None
    if name in ("export", "declare", "local", "readonly", "typeset"):
        for a in argv[1:]:
            key, eq, value = a.partition("=")
            if eq and re.fullmatch(r"[A-Za-z_]\w*", key):
                state.env[key] = value
        return None
    if name == "alias":
        for a in cmd.args:
            key, eq, value = a.partition("=")
            if eq:
                state.aliases[key] = value
        return None
    if name in state.aliases:
        res.nested.append(state.aliases[name] + " " + " ".join(shlex.quote(a) for a in argv[1:]))
        return None
    if name in state.parsed.functions:
        body = state.parsed.functions[name]
        args = argv[1:]
        body = re.sub(r'"?\$(?:\{@\}|@|\*|\{\*\})"?', " ".join(shlex.quote(a) for a in args), body)
        body = re.sub(
            r"\$\{?([1-9])\}?",
            lambda m: shlex.quote(args[int(m.group(1)) - 1]) if int(m.group(1)) <= len(args) else m.group(0),
            body,
        )
        res.nested.append(body)
        return None
    # arguments and redirect targets that were variables or substitutions: the rules see their real values
    code_runner = name == "eval" or name in SHELLS or _lang(name) is not None  # their args stay as written
    for i, (word, known) in enumerate(expanded[1:], start=1):
        if known and word != cmd.argv[i] and not code_runner:
            cmd.argv[i] = word
    for i, (op, target) in enumerate(cmd.redirects):
        value, known = state.expand(target)
        if known and value != target:
            cmd.redirects[i] = (op, value)
    if name == "eval":
        text = " ".join(argv[1:])
        if all(k for _, k in expanded[1:]):
            res.nested.append(text)
        else:
            res.findings.append(
                Finding(
                    "unknown-eval", "evaluates a string computed at run time", effect="unknown", unknown=True
                )
            )
        return None
    if name == "find":
        _find_exec(state, argv)
    if name in ("make", "gmake") and any(a in ("-", "/dev/stdin") for a in argv[1:]) and stdin:
        res.nested += [re.sub(r"^[^\s:]+:+;?", "", ln).strip() for ln in stdin.splitlines() if ln.strip()]
    if name in ("ssh", "mosh") and len(argv) > 1:
        _ssh(state, argv[1:])
    if name in SHELLS or name == "su":
        for i, a in enumerate(cmd.args):
            if a.startswith("-") and "c" in a[1:] and not a.startswith("--") and i + 1 < len(cmd.args):
                script, known = expanded[i + 2]
                positional = argv[i + 3 :]
                if positional and re.search(r"\$\{?[0-9@*]", script) and "__SUBST" not in original[i + 2]:
                    res.nested.append(_positional(script, positional))
                if re.fullmatch(r"\$\{?\w+\}?|.*__SUBST\d+__.*", original[i + 2], re.S):
                    if known:
                        res.nested.append(script)
                    else:
                        res.findings.append(
                            Finding(
                                "unknown-eval",
                                f"{name} -c runs a string computed at run time",
                                effect="unknown",
                                unknown=True,
                            )
                        )
                break
    if "xargs" in cmd.wrappers and name in _DESTROYERS:
        _xargs(state, cmd, argv, stdin, upstream)
    _run_scripts(state, cmd, argv, stdin)
    out = _producer(cmd, argv[1:]) if name in ("echo", "printf") else None
    if (
        out is None
        and stdin is not None
        and stdin != DOWNLOADED
        and name in ("base64", "rev", "tr", "xxd", "cat", "tee", "head", "tail")
    ):
        out = _filter(name, argv[1:], stdin) if name != "tee" else stdin
    if name in ("tee",) and stdin is not None:
        for t in [a for a in argv[1:] if not a.startswith("-")]:
            state.files[t] = stdin
        out = stdin
    if name in FETCHERS:
        out = DOWNLOADED
        for i, a in enumerate(cmd.args[:-1]):
            if a in ("-o", "--output", "-O", "--output-document") or re.fullmatch(r"-\w*[oO]", a):
                state.files[cmd.args[i + 1]] = DOWNLOADED
    if name == "cp" and len(argv) >= 3 and not argv[-2].startswith("-"):
        state.files[argv[-1]] = state.files.get(argv[-2], state.read_script(argv[-2]))
    _record_writes(state, cmd, out)
    return out


def _positional(script: str, positional: list[str]) -> str:
    """`sh -c SCRIPT ARG0 ARG1 ...`: the script with $0, $1, ..., "$@" filled in."""
    body = re.sub(r'"?\$(?:\{@\}|@|\*)"?', " ".join(shlex.quote(a) for a in positional[1:]), script)

    def arg(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return shlex.quote(positional[n]) if n < len(positional) else ""

    return re.sub(r"\$\{?([0-9])\}?", arg, body)


def _runs_later(name: str, args: list[str], raw: list[str]) -> list[str] | None:
    """Command strings that other commands run: trap, script -c, parallel, env -S."""
    if name == "trap" and args and not args[0].startswith("-"):
        return [args[0]]
    if name == "script":
        for i, a in enumerate(args[:-1]):
            if a in ("-c", "--command") or re.fullmatch(r"-[a-zA-Z]*c", a):
                return [args[i + 1]]
    if name in ("parallel", "rush") and ":::" in args:
        cut = args.index(":::")
        template = " ".join(args[:cut])
        items = args[cut + 1 :]
        return [
            template.replace("{}", i) if "{}" in template else f"{template} {shlex.quote(i)}" for i in items
        ]
    for i, a in enumerate(raw[:-1]):
        if os.path.basename(a) == "env" and i + 2 < len(raw) and raw[i + 1] in ("-S", "--split-string"):
            return [" ".join([raw[i + 2], *raw[i + 3 :]])]
    return None


def _chdir(state: _State, name: str, args: list[str]) -> None:
    if name == "popd":
        state.cwd = state.dirs.pop() if state.dirs else None
        return
    if name == "pushd":
        state.dirs.append(state.cwd)
    target = next((a for a in args if not a.startswith("-")), "~")
    if target.startswith(("/", "~")):
        new = target
    elif state.cwd is not None:
        new = posixpath.normpath(posixpath.join(state.cwd, target))
    elif state.ws:
        new = posixpath.normpath(posixpath.join(state.ws, target))
    else:
        new = target if target.startswith("..") else None  # type: ignore[assignment]
    state.cwd = new if new is not None and (P.outside(new, state.ws) or new.startswith("..")) else None


def _find_exec(state: _State, argv: list[str]) -> None:
    """`find ROOT ... -exec CMD {} ;`: CMD runs on what find lists under ROOT."""
    root = next((a for a in argv[1:] if not a.startswith(("-", "(", "!"))), ".")
    filtered = any(
        a in ("-name", "-iname", "-path", "-type", "-regex", "-newer", "-mtime", "-size") for a in argv
    )
    match = posixpath.join(root, "__match__") if filtered else root  # what {} stands for
    for i, a in enumerate(argv):
        if a in ("-exec", "-execdir", "-ok", "-okdir"):
            words: list[str] = []
            for w in argv[i + 1 :]:
                if w in (";", "+", "\\;"):
                    break
                words.append(match if w == "{}" else w.replace("{}", match))
            if words:
                state.out.nested.append(" ".join(shlex.quote(w) for w in words))


_SSH_VALUE_OPTS = {"-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-W", "-b", "-c", "-e", "-m", "-S", "-E",
                   "-O", "-Q", "-w", "-B"}  # fmt: skip


def _ssh(state: _State, args: list[str]) -> None:
    """`ssh HOST CMD...`: the remote command is a command too."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _SSH_VALUE_OPTS else 1
    if i + 1 < len(args):
        state.out.nested.append(" ".join(args[i + 1 :]))


def _record_writes(state: _State, cmd: SimpleCommand, out: str | None) -> None:
    for op, target in cmd.redirects:
        if op in (">", ">>", ">|", "&>", "&>>"):
            path = state.expand(target)[0]
            if op.endswith(">>") and state.files.get(path) is not None and out is not None:
                state.files[path] = (state.files[path] or "") + out
            else:
                state.files[path] = out


def _xargs(
    state: _State, cmd: SimpleCommand, argv: list[str], stdin: str | None, upstream: SimpleCommand | None
) -> None:
    """`... | xargs rm -rf`: the targets come from stdin; find/ls/echo upstream name them."""
    items: list[str] | None = None
    raw = cmd.raw_argv
    listfile = next((raw[i + 1] for i, a in enumerate(raw[:-1]) if a in ("-a", "--arg-file")), None)
    if listfile is not None:
        stdin = state.expand(listfile)[0] if "__SUBST" in listfile else state.read_script(listfile)
        if stdin is not None and "__SUBST" in stdin:
            stdin = None
    if stdin is not None and stdin != DOWNLOADED:
        items = stdin.replace("\0", " ").split()
    else:
        listers = [
            u for u in state.upstream if u.name in ("find", "ls", "echo", "printf", "fd", "realpath", "du")
        ]
        if listers:  # the first lister names the paths; sed/grep/sort after it only reshape the list
            first = listers[0]
            items = [state.expand(a)[0] for a in first.args if not a.startswith("-")]
            if first.name == "find":
                items = items[:1] or ["."]
            elif first.name == "ls" and items:
                items = [posixpath.join(i, "__entry__") for i in items]
    if items is None:
        state.out.findings.append(
            Finding(
                "unknown-xargs",
                f"xargs {cmd.name} acts on a list only known at run time",
                effect="unknown",
                unknown=True,
            )
        )
        return
    if items:
        argv = [a for a in argv if a not in ("{}",)]
        state.out.nested.append(" ".join(shlex.quote(w) for w in [*argv, *items]))


def _run_scripts(state: _State, cmd: SimpleCommand, argv: list[str], stdin: str | None) -> None:
    """Shells, interpreters and database clients: find the code they run, or say it is unknown."""
    name, args = cmd.name, argv[1:]
    if {"--version", "-V", "--help", "-h", "-v"} & set(args[:1]):
        return  # prints its version or usage
    res = state.out
    files = [a for a in args if not a.startswith("-")]
    lang = _lang(name)
    # a program run by its path (`/tmp/b`, `~/x`, `bin/tool`) that this line wrote, or that sits in a temp dir
    path = next((w for w in cmd.raw_argv if "/" in w and os.path.basename(w) == name), "")
    if path and not name.startswith("./") and (state.written_here(path) or P.is_tmp(path)):
        _script(state, "shell", path)
        return
    if name in ("sudo", "su", "doas") and not files and state.fed:
        _stdin_code(state, "shell", name, stdin)
        return
    if (
        name in SHELLS
        or name in ("source", ".")
        or name.startswith("./")
        or ("/" in name and name.endswith(".sh"))
    ):
        if name in SHELLS and any(
            a.startswith("-") and "c" in a[1:] and not a.startswith("--") for a in args
        ):
            return  # `sh -c '...'`: the parser already reads the string
        script = name if (name.startswith("./") or "/" in name) else (files[0] if files else None)
        if script is not None and name not in ("source", ".") and "-s" in args:
            script = None
        if script is None or script in ("-", "/dev/stdin"):
            _stdin_code(state, "shell", name, stdin)
            return
        _script(state, "shell", script, sourced=name in ("source", "."))
        return
    if lang is not None:
        flags = _CODE_FLAGS.get(lang, ())
        for i, a in enumerate(args):
            if (a in flags or (lang == "perl" and re.fullmatch(r"-\w*[eE]", a))) and i + 1 < len(args):
                res.code.append((lang, args[i + 1]))
                return
            if lang == "python" and a.startswith("-c") and len(a) > 2:
                res.code.append((lang, a[2:]))
                return
        if lang == "awk":
            program = [a for a in cmd.args if not a.startswith("-")][:1]
            if "-f" not in cmd.args and program:
                res.code.append(("awk", program[0]))
            return
        if lang == "python" and "-m" in args:
            return  # a module from the environment: its own code, not something written here
        if not files or files[0] in ("-", "/dev/stdin"):
            _stdin_code(state, lang, name, stdin)
            return
        _script(state, lang, files[0])
        return
    if name in _DB_CLIENTS:
        texts = [stdin] if stdin not in (None, DOWNLOADED) else []
        for op, target in cmd.redirects:
            if op == "<" and stdin is None:
                _sql_file(state, state.expand(target)[0])
        for i, a in enumerate(args[:-1]):
            if a in ("-f", "--file", "-i") or (name == "sqlite3" and a == "-init"):
                _sql_file(state, args[i + 1])
        for t in texts:
            res.sql.append(t or "")
            for line in (t or "").splitlines():  # `.read file` and `\i file` inside the SQL
                m = re.match(r"\s*(?:\.read|\\i|\\include|source)\s+(\S+)", line)
                if m:
                    _sql_file(state, m.group(1))


def _sql_file(state: _State, path: str) -> None:
    content = state.read_script(path)
    if content is not None and content != DOWNLOADED:
        state.out.sql.append(content)
    elif _SQL_NAME_HINT.search(os.path.basename(path)):
        state.out.sql.append("DROP TABLE -- file named " + path)
    elif state.unseen(path) or state.ws is None or content == DOWNLOADED:
        state.out.findings.append(
            Finding(
                "unknown-sql",
                f"feeds the SQL file {path} to a database (content not visible)",
                effect="unknown",
                unknown=True,
            )
        )


def _stdin_code(state: _State, lang: str, name: str, stdin: str | None) -> None:
    if stdin == DOWNLOADED:
        return  # the pipeline rules name curl | sh already
    if stdin is not None:
        (state.out.nested if lang == "shell" else state.out.code).append(
            stdin if lang == "shell" else (lang, stdin)  # type: ignore[arg-type]
        )
        return
    if (lang == "shell" and name in ("source", ".")) or not state.fed:
        return  # nothing is piped in: an interactive interpreter reads the (absent) terminal
    state.out.findings.append(
        Finding(
            "unknown-stdin",
            f"{name} runs code from its input, which is only known at run time",
            effect="unknown",
            unknown=True,
        )
    )


def _script(state: _State, lang: str, path: str, sourced: bool = False) -> None:
    content = state.read_script(path)
    if content == DOWNLOADED:
        state.out.findings.append(
            Finding("download-exec", f"downloads {path} and runs it", effect="network-exec")
        )
    elif content is not None:
        if lang == "shell":
            state.out.nested.append(content)
        else:
            state.out.code.append((lang, content))
    elif state.unseen(path, sourced):
        state.out.findings.append(
            Finding(
                "unknown-script",
                f"runs the script {path}, whose content cannot be seen before it runs",
                effect="unknown",
                unknown=True,
            )
        )
