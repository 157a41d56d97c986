"""What really runs: a small static evaluation of a parsed command line. Variables, aliases, functions, `$(printf
...)`-style substitutions, heredocs and here-strings, pipes, files written earlier in the same line, `xargs` and
`eval` are followed, so `a=rm; $a -rf ~` reads as `rm -rf ~`. What cannot be followed is reported as unknown."""

from __future__ import annotations

import posixpath
import re
import shlex

from grove.security.commands import paths as P
from grove.security.commands.base import FETCHERS, Finding
from grove.security.commands.resolve_runs import (
    fill_positional,
    find_exec,
    interpreter_lang,
    run_scripts,
    runs_later,
    ssh_command,
    xargs_targets,
)
from grove.security.commands.resolve_words import (
    DOWNLOADED,
    Resolution,
    State,
    filter_output,
    printf,
    producer,
)
from grove.security.commands.shell import SHELLS, ParsedCommand, SimpleCommand

_DESTROYERS = {"rm", "shred", "unlink", "rmdir", "srm", "wipe", "truncate", "mv", "chmod", "chown", "dd"}


def resolve(parsed: ParsedCommand, workspace: str | None = None) -> Resolution:
    """Follow what runs in `parsed` (top level, in order); nested substitutions are resolved by their own call."""
    state = State(parsed, workspace)
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


def _one(state: State, cmd: SimpleCommand, stdin: str | None, upstream: SimpleCommand | None) -> str | None:
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
    later = runs_later(cmd.name, argv[1:], cmd.raw_argv)
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
        state.env[argv[2]] = printf(argv[3], argv[4:])
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
    code_runner = (
        name == "eval" or name in SHELLS or interpreter_lang(name) is not None
    )  # their args stay as written
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
        find_exec(state, argv)
    if name in ("make", "gmake") and any(a in ("-", "/dev/stdin") for a in argv[1:]) and stdin:
        res.nested += [re.sub(r"^[^\s:]+:+;?", "", ln).strip() for ln in stdin.splitlines() if ln.strip()]
    if name in ("ssh", "mosh") and len(argv) > 1:
        ssh_command(state, argv[1:])
    if name in SHELLS or name == "su":
        for i, a in enumerate(cmd.args):
            if a.startswith("-") and "c" in a[1:] and not a.startswith("--") and i + 1 < len(cmd.args):
                script, known = expanded[i + 2]
                positional = argv[i + 3 :]
                if positional and re.search(r"\$\{?[0-9@*]", script) and "__SUBST" not in original[i + 2]:
                    res.nested.append(fill_positional(script, positional))
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
        xargs_targets(state, cmd, argv, stdin, upstream)
    run_scripts(state, cmd, argv, stdin)
    out = producer(cmd, argv[1:]) if name in ("echo", "printf") else None
    if (
        out is None
        and stdin is not None
        and stdin != DOWNLOADED
        and name in ("base64", "rev", "tr", "xxd", "cat", "tee", "head", "tail")
    ):
        out = filter_output(name, argv[1:], stdin) if name != "tee" else stdin
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


def _chdir(state: State, name: str, args: list[str]) -> None:
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
        new = target if target.startswith("..") else None
    state.cwd = new if new is not None and (P.outside(new, state.ws) or new.startswith("..")) else None


def _record_writes(state: State, cmd: SimpleCommand, out: str | None) -> None:
    for op, target in cmd.redirects:
        if op in (">", ">>", ">|", "&>", "&>>"):
            path = state.expand(target)[0]
            if op.endswith(">>") and state.files.get(path) is not None and out is not None:
                state.files[path] = (state.files[path] or "") + out
            else:
                state.files[path] = out
