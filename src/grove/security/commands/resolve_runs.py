"""What wrappers and interpreters run: `sh -c` positional arguments, trap/script/parallel/env -S, find -exec,
ssh, xargs, and the scripts, stdin code and SQL that shells, interpreters and database clients are fed."""

from __future__ import annotations

import functools
import os
import posixpath
import re
import shlex

from grove.lazy_regex import later
from grove.security.commands import paths as P
from grove.security.commands.base import Finding
from grove.security.commands.resolve_words import DOWNLOADED, State
from grove.security.commands.shell import SHELLS, SimpleCommand

INTERPRETER_LANGS = {"python": "python", "perl": "perl", "node": "js", "nodejs": "js", "deno": "js", "bun": "js",
                     "ruby": "ruby", "php": "php", "awk": "awk", "gawk": "awk", "mawk": "awk", "lua": "lua",
                     "luajit": "lua", "Rscript": "r", "julia": "julia", "pwsh": "pwsh", "powershell": "pwsh",
                     "osascript": "applescript", "tclsh": "tcl", "groovy": "groovy"}  # fmt: skip
_CODE_FLAGS = {"python": ("-c",), "perl": ("-e", "-E"), "js": ("-e", "--eval", "-p", "--print"),
               "ruby": ("-e",), "php": ("-r",), "lua": ("-e",), "r": ("-e",), "julia": ("-e",),
               "pwsh": ("-c", "-Command", "-command"), "applescript": ("-e",), "groovy": ("-e",)}  # fmt: skip
_DB_CLIENTS = {"sqlite3", "psql", "mysql", "mariadb", "duckdb", "sqlcmd", "clickhouse-client", "cockroach"}
_SQL_NAME_HINT = later(r"drop|wipe|truncate|purge|reset|destroy|delete|nuke|clean", re.I)


@functools.lru_cache(maxsize=4096)  # asked for every command; program names repeat
def interpreter_lang(name: str) -> str | None:
    base = re.sub(r"[\d.]+$", "", name)
    return INTERPRETER_LANGS.get(base)


def fill_positional(script: str, positional: list[str]) -> str:
    """`sh -c SCRIPT ARG0 ARG1 ...`: the script with $0, $1, ..., "$@" filled in."""
    body = re.sub(r'"?\$(?:\{@\}|@|\*)"?', " ".join(shlex.quote(a) for a in positional[1:]), script)

    def arg(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return shlex.quote(positional[n]) if n < len(positional) else ""

    return re.sub(r"\$\{?([0-9])\}?", arg, body)


def runs_later(name: str, args: list[str], raw: list[str]) -> list[str] | None:
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
        if a.rpartition("/")[2] == "env" and i + 2 < len(raw) and raw[i + 1] in ("-S", "--split-string"):
            return [" ".join([raw[i + 2], *raw[i + 3 :]])]
    return None


def find_exec(state: State, argv: list[str]) -> None:
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


def ssh_command(state: State, args: list[str]) -> None:
    """`ssh HOST CMD...`: the remote command is a command too."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _SSH_VALUE_OPTS else 1
    if i + 1 < len(args):
        state.out.nested.append(" ".join(args[i + 1 :]))


def xargs_targets(
    state: State, cmd: SimpleCommand, argv: list[str], stdin: str | None, upstream: SimpleCommand | None
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


def run_scripts(state: State, cmd: SimpleCommand, argv: list[str], stdin: str | None) -> None:
    """Shells, interpreters and database clients: find the code they run, or say it is unknown."""
    name, args = cmd.name, argv[1:]
    if args and args[0] in ("--version", "-V", "--help", "-h", "-v"):
        return  # prints its version or usage
    res = state.out
    files = [a for a in args if not a.startswith("-")]
    lang = interpreter_lang(name)
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


def _sql_file(state: State, path: str) -> None:
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


def _stdin_code(state: State, lang: str, name: str, stdin: str | None) -> None:
    if stdin == DOWNLOADED:
        return  # the pipeline rules name curl | sh already
    if stdin is not None:
        if lang == "shell":
            state.out.nested.append(stdin)
        else:
            state.out.code.append((lang, stdin))
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


def _script(state: State, lang: str, path: str, sourced: bool = False) -> None:
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
