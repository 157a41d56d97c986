"""The commands a markdown skill shows: fenced blocks by language, inline code, `$ ` prompts and bare command
lines, read by the shell / Python / JavaScript analysers; what is shown as a bad example counts one level lower,
and the shown-command policy (skill_scan.shown: vendor installers, routine setup steps) applies to each block."""

from __future__ import annotations

import re
from collections.abc import Callable

from grove.security.skill_scan.hits import Hit, Level, line_of, remembered_when_short, shifted
from grove.security.skill_scan.js_code import js_hits
from grove.security.skill_scan.python_code import python_hits
from grove.security.skill_scan.shell_script import shell_hits
from grove.security.skill_scan.shown import shown_policy

# -- markdown: the commands a skill shows, and its prose ------------------------------------------------------
# Prose that warns against a command (`never run X`) mentions it; it does not tell the agent to run it.
_WARNING = re.compile(
    r"\b(?:never|don't|do\s+not|avoid|without\s+(?:the\s+user'?s?\s+)?(?:explicit\s+)?"
    r"(?:approval|confirmation|asking)|unless|instead\s+of|not|dangerous|destructive|bad|block\w*|prevent\w*|"
    r"forbid\w*|refus\w*|den(?:y|ies|ied)|protect\w*|guard\w*|catch\w*|detect\w*)\b[^`\n]{0,60}$",
    re.I,
)
_SHELL_LANGS = {
    "",
    "bash",
    "sh",
    "shell",
    "zsh",
    "console",
    "terminal",
    "shell-session",
    "sh-session",
    "shellscript",
}
_PY_LANGS = {"python", "py", "python3", "pycon"}
_JS_LANGS = {"javascript", "js", "node", "typescript", "ts", "jsx", "tsx", "mjs"}
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)
_INLINE = re.compile(r"(?<!`)`([^`\n]{4,200})`(?!`)")
_PROMPT_LINE = re.compile(r"^\s*\$\s+(.+)$", re.M)
# A bare line that starts like a command (outside code blocks): skills written by hand often skip the fences.
_BARE_START = (
    r"(?:sudo\s+)?(?:curl|wget|rm|dd|mkfs[.\w]*|chmod|chown|crontab|echo|printf|cat|bash|sh|zsh|"
    r"python3?|perl|ruby|node|nc|ncat|scp|rsync|ssh|base64|eval|find|tar|git|docker|kubectl|psql|mysql)\s"
)
_BARE_LINE = re.compile(rf"^\s*({_BARE_START}[^\n]*)$", re.M)
# What a match of each line pattern holds: its start, after the text's start or a newline and blanks of that line.
# A text with neither has no match; `^` in a multiline pattern is tried at every character, "\n" is skipped to.
_LINE_GATES = {
    _PROMPT_LINE: (re.compile(r"[^\S\n]*\$\s"), re.compile(r"\n[^\S\n]*\$\s")),
    _BARE_LINE: (re.compile(rf"[^\S\n]*{_BARE_START}"), re.compile(rf"\n[^\S\n]*{_BARE_START}")),
}
# Blocks shown as what not to do: a heading or line just before the block says so.
_BAD_EXAMPLE = re.compile(
    r"(?:❌|\bbad\b|\bwrong\b|\bdon'?t\b|\bdo not\b|\bnever\b|\bavoid\b|\banti-?pattern|\bdangerous\b|\bunsafe\b|"
    r"\binsecure\b|\bvulnerable\b|\bmalicious\b|\battack|\bexploit|\bred[- ]team|\bpayload)",
    re.I,
)


def _mentioned(hits: list[Hit]) -> list[Hit]:
    """Commands shown as what not to do: one level lower (a reader still sees them, so dangerous is caution)."""
    lower: dict[str, Level] = {"dangerous": "caution", "caution": "note", "note": "note"}
    return [Hit(lower[h.level], f"shown as what not to do: {h.why}", h.line, h.excerpt) for h in hits]


# Commands an unlabelled block or inline code must start with to be read as shell (else it is prose or data).
_COMMAND_WORDS = set(
    [
        "curl",
        "wget",
        "rm",
        "dd",
        "mkfs",
        "chmod",
        "chown",
        "crontab",
        "echo",
        "printf",
        "cat",
        "bash",
        "sh",
        "zsh",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
        "nc",
        "ncat",
        "scp",
        "rsync",
        "ssh",
        "base64",
        "eval",
        "find",
        "tar",
        "git",
        "docker",
        "kubectl",
        "psql",
        "mysql",
        "sudo",
        "cd",
        "ls",
        "cp",
        "mv",
        "mkdir",
        "export",
        "source",
        "npm",
        "npx",
        "pip",
        "pip3",
        "pipx",
        "uv",
        "yarn",
        "pnpm",
        "brew",
        "apt",
        "apt-get",
        "yum",
        "dnf",
        "make",
        "go",
        "cargo",
        "rustc",
        "deno",
        "bun",
        "systemctl",
        "service",
        "openssl",
        "gpg",
        "aws",
        "gcloud",
        "az",
        "terraform",
        "helm",
        "env",
        "xargs",
        "tee",
        "sed",
        "awk",
        "grep",
        "head",
        "tail",
        "touch",
        "ln",
        "kill",
        "pkill",
        "unzip",
        "zip",
        "gzip",
        "history",
        "sqlite3",
        "redis-cli",
        "mongo",
        "mongosh",
        "nohup",
        "exec",
        "dig",
        "nmap",
    ]
)
_SHELLISH = re.compile(r"[|;&><]|\$\(|`")
_PROMPT = re.compile(r"^\s*\$\s+")  # a `$ ` prompt in front of a command


def _looks_like_command(line: str) -> bool:
    words = _PROMPT.sub("", line).split()
    if not words:
        return False
    first = words[1] if words[0] == "sudo" and len(words) > 1 else words[0]
    return first.rsplit("/", 1)[-1] in _COMMAND_WORDS and (len(words) > 1 or bool(_SHELLISH.search(line)))


def _looks_like_shell(body: str) -> bool:
    """An unlabelled block is shell when it has a shebang or a `$ ` prompt, or most of its lines are commands."""
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if body.startswith("#!") or any(_PROMPT.match(ln) for ln in lines):
        return True
    return bool(lines) and sum(_looks_like_command(ln) for ln in lines) * 2 >= len(lines)


def _last_lines(text: str, end: int, n: int) -> list[str]:
    """`text[:end].splitlines()[-n:]` without splitting the whole prefix (once per fence, it was quadratic): a
    suffix that starts just after a newline splits into the same last lines."""
    start = end
    while start > 0:
        start = text.rfind("\n", 0, start - 1) + 1
        lines = text[start:end].splitlines()
        if len(lines) > n:
            return lines[-n:]
    return text[:end].splitlines()[-n:]


_ANALYSERS: dict[str, Callable[[str], list[Hit]]] = {
    "shell": shell_hits,
    "python": python_hits,
    "javascript": js_hits,
}
# Blocks up to this long are remembered per process: a collection shows `npm install`, `pip install -r ...` and
# the same quick-start thousands of times. A block's hits depend on its kind and text alone.
MEMO_CHARS = 4000


def shown_hits(kind: str, block: str) -> list[Hit]:
    """The hits of a block of `kind` (shell, python, javascript) that markdown shows, the shown policy applied;
    numbered from the block's first line."""
    return list(_shown_hits(kind, block))


@remembered_when_short(MEMO_CHARS, 8192)
def _shown_hits(kind: str, block: str) -> tuple[Hit, ...]:
    return tuple(shown_policy(_ANALYSERS[kind](block), block))


def markdown_hits(text: str) -> list[Hit]:
    out: list[Hit] = []
    kept: list[str] = []  # the text outside the fences, each fence left as its newlines (line numbers hold)
    last = 0
    for m in _FENCE.finditer(text):
        kept += (text[last : m.start()], "\n" * m.group(0).count("\n"))
        last = m.end()
        lang, body, start = m.group(2).lower(), m.group(3), line_of(text, m.start(3))
        if lang in _SHELL_LANGS and (lang or _looks_like_shell(body)):
            kind = "shell"
        elif lang in _PY_LANGS:
            kind = "python"
        elif lang in _JS_LANGS:
            kind = "javascript"
        else:
            continue
        found = shifted(shown_hits(kind, body), start)
        context = "\n".join(_last_lines(text, m.start(), 3))
        out += _mentioned(found) if _BAD_EXAMPLE.search(context) else found
    outside = "".join((*kept, text[last:]))  # as _FENCE.sub would make it, without matching the fences again
    for m in _INLINE.finditer(outside):
        if not _looks_like_command(m.group(1)):
            continue
        line = line_of(outside, m.start())  # positions in `outside`: the fences there are only their newlines
        before = outside[max(0, m.start() - 80) : m.start()].rsplit("\n", 1)[-1]
        found = shifted(shown_hits("shell", m.group(1)), line)
        out += _mentioned(found) if _WARNING.search(before) else found
    for pattern in (_PROMPT_LINE, _BARE_LINE):
        at_start, after_newline = _LINE_GATES[pattern]
        if not (at_start.match(outside) or after_newline.search(outside)):
            continue
        for m in pattern.finditer(outside):
            if not m.group(1).lstrip().startswith("#"):
                out += shifted(shown_hits("shell", m.group(1)), line_of(outside, m.start()))
    return out
