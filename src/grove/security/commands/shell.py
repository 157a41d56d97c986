"""A small shell-command parser for the safety rules: pipelines of simple commands, wrappers stripped,
command substitutions, `sh -c` strings and heredoc bodies parsed too. Precise enough to tell `rm -rf ~` from
`grep -r "rm -rf ~" docs/`, and conservative when the text does not parse."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from grove.lazy_regex import later
from grove.security.fast import shortcuts

OPERATORS = {";", "&&", "||", "|", "&", "\n", "|&", ";;", "(", ")"}
REDIRECTS = {">", ">>", ">|", "&>", "&>>", ">&", "<", "<>", "<<<", "<<", "<<-"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox-sh"}
# Commands that run the next word as a command; the value says how many option arguments they may take.
WRAPPERS = {
    "sudo", "doas", "nohup", "nice", "ionice", "time", "timeout", "command", "builtin", "exec", "stdbuf",
    "env", "xargs", "setsid", "unbuffer", "chronic", "caffeinate", "torsocks", "proxychains", "strace",
    "watch", "flock", "chroot", "runuser", "su", "busybox", "then", "do", "else", "!",
}  # fmt: skip
# Options of each wrapper that take a value (the next word is that value, not the command).
_WRAPPER_VALUE_OPTS: dict[str, set[str]] = {
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-U", "-r", "-t", "-D", "-R"},
    "doas": {"-u", "-C"},
    "nice": {"-n"},
    "ionice": {"-c", "-n", "-p"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "xargs": {"-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a"},
    "env": {"-u", "-C", "-S", "--unset", "--chdir"},
    "flock": {"-w", "-E"},
    "runuser": {"-u", "-g"},
    "su": {"-s", "-g"},
    "stdbuf": {"-i", "-o", "-e"},
    "strace": {"-o", "-e", "-p", "-s"},
}
_HEREDOC = later(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1[^\n]*\n(.*?)\n\s*\2\s*(?:\n|$)", re.S)
_ANSI_C = later(r"\$'((?:[^'\\]|\\.)*)'")
# `name() { body; }` and `function name { body; }` (bodies without nested braces; nested ones stay unresolved)
_FUNCTION = later(
    r"(?:\bfunction\s+)?\b([A-Za-z_][\w-]*)\s*\(\s*\)\s*\{([^{}]*)\}|\bfunction\s+([A-Za-z_][\w-]*)\s*\{([^{}]*)\}"
)
_ARRAY = later(r"(?<![\w$])([A-Za-z_]\w*)=\(([^()]*)\)")  # arrays are kept as one space-joined value
_BRACE = later(r"^([^{}\s]*)\{([^{}\s]*,[^{}\s]*)\}([^{}\s]*)$")
_EMPTY_PARENS = later(r"\(\s*\)")  # every `name() {` has it (the other form says `function`)
_FUNCTION_WORD = later(r"\bfunction\s+([A-Za-z_][\w-]*)\s*(?:\(\s*\))?\s*\{")


@dataclass
class SimpleCommand:
    argv: list[str]  # wrappers and leading VAR=value assignments removed; argv[0] is a basename
    raw_argv: list[str]
    redirects: list[tuple[str, str]] = field(default_factory=list)  # (operator, target)
    assignments: dict[str, str] = field(default_factory=dict)
    wrappers: list[str] = field(default_factory=list)  # e.g. ["sudo", "xargs"]
    stdin_text: str | None = None  # the body of a heredoc (`<<EOF`) or here-string (`<<<`) fed to it
    # argv[0], kept since the rules read it ~100 times a command; resolve rewrites arguments, never argv[0]
    name: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.name = self.argv[0] if self.argv else ""

    @property
    def args(self) -> list[str]:
        return self.argv[1:]


@dataclass
class Pipeline:
    commands: list[SimpleCommand]
    background: bool = False


@dataclass
class ParsedCommand:
    pipelines: list[Pipeline]
    substitutions: list[ParsedCommand] = field(default_factory=list)  # $(...), `...`, <(...), sh -c '...'
    heredocs: list[str] = field(default_factory=list)
    text: str = ""
    parse_error: bool = False
    functions: dict[str, str] = field(default_factory=dict)  # shell functions defined here: name -> body

    def walk(self) -> list[tuple[Pipeline, SimpleCommand]]:
        """Every simple command, in this text and in everything nested in it."""
        out = [(p, c) for p in self.pipelines for c in p.commands]
        for sub in self.substitutions:
            out += sub.walk()
        return out

    def temp_vars(self) -> frozenset[str]:
        """Variables assigned from `$(mktemp ...)` in this text: they hold fresh temp paths."""
        out = set()
        for _, cmd in self.walk():
            for key, value in cmd.assignments.items():
                m = re.fullmatch(r"__SUBST(\d+)__", value)
                sub = (
                    self.substitutions[int(m.group(1))]
                    if m and int(m.group(1)) < len(self.substitutions)
                    else None
                )
                if sub is not None and any(c.name == "mktemp" for _, c in sub.walk()):
                    out.add(key)
        return frozenset(out)

    def all_heredocs(self) -> list[str]:
        return self.heredocs + [h for s in self.substitutions for h in s.all_heredocs()]


_OPERATOR_CHARS = frozenset(";&|\n()")
_SUBST_START = later(r"[$<>]\(")


def _extract_substitutions(text: str) -> tuple[str, list[str]]:
    """Replace $(...), <(...), >(...) and `...` by a placeholder word; return their inner texts."""
    if "`" not in text and not _SUBST_START.search(text):
        return text, []  # nothing could start a substitution: the loop below would copy every character
    inner: list[str] = []
    out: list[str] = []
    i, n = 0, len(text)
    in_single = False
    while i < n:
        ch = text[i]
        if ch == "'" and not in_single:
            in_single = True
        elif ch == "'" and in_single:
            in_single = False
        if (
            not in_single
            and ch in "$<>"
            and i + 1 < n
            and text[i + 1] == "("
            and not text.startswith("$((", i)
        ):
            depth, j = 1, i + 2
            while j < n and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            inner.append(text[i + 2 : j - 1])
            out.append(f" __SUBST{len(inner) - 1}__ " if ch != "$" else f"__SUBST{len(inner) - 1}__")
            i = j
            continue
        if not in_single and ch == "`":
            j = text.find("`", i + 1)
            if j > i:
                inner.append(text[i + 1 : j])
                out.append(f"__SUBST{len(inner) - 1}__")
                i = j + 1
                continue
        out.append(ch)
        i += 1
    return "".join(out), inner


def _strip_comments(text: str) -> str:
    """Drop `# ...` comments as the shell does: an unquoted `#` that starts a word runs to the end of its line
    (`curl URL | bash # note` must not read as bash running a file named '#'). shlex's own commenters also cut
    a `#` inside a word and eat the newline that ends the command, so this is done here, with line
    continuations (backslash-newline) joined."""
    if "#" not in text and "\\\n" not in text:
        return text  # no comment and no continuation: the loop below would copy every character
    out: list[str] = []
    quote = ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and text[i + 1 : i + 2] == "\n" and quote != "'":
            i += 2  # a line continuation: the command goes on
            continue
        if quote:
            if ch == "\\" and quote == '"' and i + 1 < n:
                out.append(text[i : i + 2])
                i += 2
                continue
            quote = "" if ch == quote else quote
        elif ch == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
            continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n;&|()"):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# The lexer below (shlex: POSIX, punctuation "();<>|&\n", whitespace " \t\r", whitespace_split, no comments) as
# regexes: a token is a run of punctuation, or a word of plain characters, backslash escapes and quoted strings.
# shlex reads a character at a time in Python and was most of a parse; where the regexes cannot read a text
# (an unclosed quote, a trailing backslash: shlex's own errors), shlex reads it as before.
# Plain runs and double-quoted bodies are read a run at a time (`[^...]+`), not a character per repetition.
_LEX = later(
    r"""[ \t\r]*(?:([();<>|&\n]+)|((?:[^ \t\r();<>|&\n'"\\]+|\\[\s\S]|'[^']*'|"[^"\\]*(?:\\[\s\S][^"\\]*)*")+))"""
)
_WORD_PART = later(r"\\([\s\S])|'([^']*)'|\"((?:[^\"\\]|\\[\s\S])*)\"")
_DQ_ESCAPE = later(r"\\([\s\S])")


def _unquote_part(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return m.group(1)  # outside quotes a backslash keeps the next character, whatever it is
    if m.group(2) is not None:
        return m.group(2)
    # inside double quotes only `\"` and `\\` lose their backslash
    return _DQ_ESCAPE.sub(lambda e: e.group(1) if e.group(1) in '"\\' else e.group(0), m.group(3))


def _fast_tokens(text: str) -> list[str] | None:
    """shlex's tokens for `text` (see _LEX), or None where shlex must read it."""
    out: list[str] = []
    pos = 0
    for m in _LEX.finditer(text):
        if m.start() != pos:
            return None
        pos = m.end()
        punct, word = m.groups()
        if punct:
            out.append(punct)
        elif "'" in word or '"' in word or "\\" in word:
            out.append(_WORD_PART.sub(_unquote_part, word))
        else:
            out.append(word)
    if text[pos:].strip(" \t\r"):
        return None
    return out


def _tokens(text: str) -> tuple[list[str], bool]:
    text = _strip_comments(text)
    fast = _fast_tokens(text)
    if fast is not None:
        return fast, False
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return [t for t in lexer], False
    except (
        ValueError
    ):  # unbalanced quotes: lines that lex alone keep their words, the rest fall back to splits
        out: list[str] = []
        for line in text.split("\n"):
            out += _line_tokens(line)
            out.append(";")
        return out, True


def _line_tokens(line: str) -> list[str]:
    """One line's words; with a stray quote (`| jq.'`), the words the line has without it, tried from the last
    quote back (one stray quote in a block used to turn every line into bare words, headers and all)."""
    quotes = [i for i, ch in enumerate(line) if ch in "'\""]
    for cut in [None, *reversed(quotes[-4:])]:
        text = line if cut is None else line[:cut] + line[cut + 1 :]
        lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&")
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            return list(lexer)
        except ValueError:
            continue
    return line.split()


_ASSIGNMENT = later(r"[A-Za-z_][A-Za-z0-9_]*=")  # VAR=value (the value may be anything)
_SPACE = later(r"\s")


def _strip_wrappers(words: list[str]) -> tuple[list[str], dict[str, str], list[str]]:
    assignments: dict[str, str] = {}
    wrappers: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if _ASSIGNMENT.match(w) and wrappers[-1:] != ["xargs"]:
            key, _, value = w.partition("=")
            assignments[key] = value
            i += 1
            continue
        base = w.rpartition("/")[2]  # os.path.basename, without its call overhead on every word
        if base == "command" and words[i + 1 : i + 2] in (["-v"], ["-V"]):
            break  # `command -v x` looks x up, it does not run it
        if base in WRAPPERS:
            wrappers.append(base)
            i += 1
            # skip the wrapper's own options (and a duration for timeout, a user for su/runuser)
            while i < len(words) and (
                words[i].startswith("-") or (base == "timeout" and words[i][:1].isdigit())
            ):
                opt = words[i]
                i += 1
                if opt in _WRAPPER_VALUE_OPTS.get(base, ()) and i < len(words):
                    i += 1
            if base == "watch" and i < len(words) and words[i][:1].isdigit():
                i += 1
            continue
        break
    rest = words[i:]
    if not rest and wrappers:  # `env` or `printenv`-like wrapper used on its own is itself the command
        rest = [wrappers.pop()]
    if rest:
        rest = [
            os.path.basename(rest[0])
            if "/" in rest[0] and not rest[0].startswith("./") and not _SPACE.search(rest[0])
            else rest[0],
            *rest[1:],
        ]
    return rest, assignments, wrappers


def _simple(words: list[str]) -> SimpleCommand:
    argv: list[str] = []
    redirects: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in REDIRECTS or (w and w[:1] in "<>&" and set(w) <= set("<>&|")):
            target = words[i + 1] if i + 1 < len(words) else ""
            redirects.append((w, target))
            if argv and argv[-1].isdigit():
                argv.pop()  # the fd number of `2>file`
            i += 2
            continue
        if w in ("{", "}", "!", "then", "do", "done", "fi", "else", "elif", "if", "while", "until", "esac"):
            i += 1
            continue
        argv.extend(_braces(w))
        i += 1
    cmd, assignments, wrappers = _strip_wrappers(argv)
    return SimpleCommand(cmd, argv, redirects, assignments, wrappers)


def _braces(word: str) -> list[str]:
    """`{rm,-rf,~/x}` and `a{b,c}d`: one level of brace expansion, as bash does before running a command."""
    if "," not in word:
        return [word]  # no list to expand (most words): the match below would fail
    m = _BRACE.match(word)
    if not m or m.group(2).count(",") > 64:
        return [word]
    return [m.group(1) + part + m.group(3) for part in m.group(2).split(",")]


def _ansi_c(m: re.Match[str]) -> str:
    """`$'\\x72\\x6d'` is `rm`: decode the escapes and quote the result for the tokenizer."""
    try:
        raw = m.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape")
    except (UnicodeDecodeError, ValueError):
        raw = m.group(1)
    return shlex.quote(raw)


def parse(text: str, depth: int = 0) -> ParsedCommand:
    # Each rewrite below runs only when the text holds what its pattern needs (most commands hold none).
    every = not shortcuts.on()  # shortcuts off: every rewrite is tried
    heredocs = [m.group(3) for m in _HEREDOC.finditer(text)] if every or "<<" in text else []
    body = _HEREDOC.sub(lambda m: m.group(0).split("\n", 1)[0] + "\n", text) if every or heredocs else text
    functions: dict[str, str] = {}
    if every or "function" in body or _EMPTY_PARENS.search(body):
        functions = {
            (m.group(1) or m.group(3)): (m.group(2) if m.group(1) else m.group(4))
            for m in _FUNCTION.finditer(body)
        }
    if every or "$'" in body:
        body = _ANSI_C.sub(_ansi_c, body)
    if every or "=(" in body:
        body = _ARRAY.sub(lambda m: f"{m.group(1)}={shlex.quote(m.group(2).strip())}", body)
    if every or "function" in body:
        body = _FUNCTION_WORD.sub(r"\1() {", body)
    flat, inner = _extract_substitutions(body)
    tokens, error = _tokens(flat)
    pipelines: list[Pipeline] = []
    current: list[SimpleCommand] = []
    words: list[str] = []

    def end_command() -> None:
        nonlocal words
        if words:
            current.append(_simple(words))
        words = []

    previous = ""
    for tok in [*tokens, ";"]:
        if tok == "\n" and previous in ("|", "|&", "&&", "||"):
            continue  # `curl URL |` then `sh` on the next line: the shell reads on, one pipeline
        if "\n" in tok and set(tok) <= set("&|\n") and tok.replace("\n", "") in ("|", "|&", "&&", "||"):
            tok = tok.replace("\n", "")  # shlex groups `|` and the newline after it into one token
        if tok in OPERATORS or (
            tok and tok[0] in _OPERATOR_CHARS and set(tok) <= _OPERATOR_CHARS and tok != "&>"
        ):
            end_command()
            if tok in ("|", "|&", "|||"):
                if previous == ")" and not current and pipelines:  # `( a; b ) | c`: the group feeds c
                    current = pipelines.pop().commands
                previous = tok
                continue
            previous = tok
            if current:
                pipelines.append(Pipeline(current, background=tok == "&"))
            current = []
        else:
            words.append(tok)
            previous = tok
    parsed = ParsedCommand(pipelines, heredocs=heredocs, text=text, parse_error=error, functions=functions)
    _attach_stdin(parsed, heredocs)
    if depth < 4:
        parsed.substitutions = [parse(s, depth + 1) for s in inner]
        for _, cmd in parsed.walk():
            script = shell_script_arg(cmd)
            if (
                script is not None and "__SUBST" not in script
            ):  # computed scripts: grove.security.commands.resolve
                parsed.substitutions.append(parse(script, depth + 1))
    return parsed


def _attach_stdin(parsed: ParsedCommand, heredocs: list[str]) -> None:
    """Give each command the heredoc (in order of appearance) or here-string it reads."""
    bodies = iter(heredocs)
    for pipe in parsed.pipelines:
        for cmd in pipe.commands:
            for op, target in cmd.redirects:
                if op in ("<<", "<<-"):
                    cmd.stdin_text = next(bodies, None)
                elif op == "<<<":
                    cmd.stdin_text = target + "\n"


def shell_script_arg(cmd: SimpleCommand) -> str | None:
    """The script of `bash -c '...'` / `eval '...'`, if this is one."""
    if cmd.name == "eval":
        return " ".join(cmd.args)
    if cmd.name in SHELLS or cmd.name == "su":
        args = cmd.args
        for i, a in enumerate(args):
            if a.startswith("-") and "c" in a[1:] and not a.startswith("--") and i + 1 < len(args):
                return args[i + 1]
    return None
