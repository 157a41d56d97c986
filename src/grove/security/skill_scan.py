"""The skill guard for create, patch and import: exfiltration, destructive commands, persistence, credential access,
obfuscated payloads and prompt injection. Same call as grove.skills.guard.scan_skill_text; import blocks 'dangerous'.

Shell in code blocks goes through the command rules (grove.security.commands), prose through the injection scan,
and a few patterns catch what only skills do (decoded payloads fed to eval, secrets read by bundled scripts)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from grove.security.commands import classify_command
from grove.security.injection import scan_text

Verdict = Literal["safe", "caution", "dangerous"]
# Command-rule ids and what they mean for a skill. Anything unlisted is 'caution': approval still runs at use time.
DANGEROUS_RULES = {
    "rm-root": "destructive: deletes / or a home or system folder",
    "rm-recursive": "destructive: recursive delete outside the workspace",
    "rm-important": "destructive: deletes credential, startup or system files",
    "disk-wipe": "destructive: overwrites a disk",
    "disk-format": "destructive: formats a disk",
    "fork-bomb": "destructive: fork bomb",
    "chmod-root": "destructive: changes permissions of the whole filesystem",
    "download-exec": "runs code downloaded from the network",
    "obfuscated-exec": "obfuscated payload: decoded data run as code",
    "env-exfil": "exfiltration: sends the environment or credentials to the network",
    "reverse-shell": "exfiltration: opens a reverse shell",
    "persistence": "persistence: shell startup files, crontab, services or SSH keys",
    "credential-read": "credential access: reads keys, tokens or password files",
    "credential-write": "credential access: overwrites credential files",
    "secret-print": "credential access: prints secret variables",
    "setuid": "privilege: makes files setuid",
    "security-off": "turns security protections off",
    "cover-tracks": "hides its tracks (clears history)",
    "container-escape": "container escape (privileged container or host / mounted)",
    "sql-destroy": "destructive: drops or wipes database data",
    "cloud-destroy": "destructive: deletes cloud resources",
}
# Prose that warns against a command (`never run X`) mentions it; it does not tell the agent to run it.
_WARNING = re.compile(
    r"\b(?:never|don't|do\s+not|avoid|without\s+(?:the\s+user'?s?\s+)?(?:explicit\s+)?"
    r"(?:approval|confirmation|asking)|unless|instead\s+of|not)\b[^`\n]{0,60}$",
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
    "fish",
}
_FENCE = re.compile(r"^(```|~~~)\s*([\w+-]*)[^\n]*\n(.*?)^\1\s*$", re.M | re.S)
_INLINE = re.compile(r"(?<!`)`([^`\n]{4,200})`(?!`)")
_PROMPT_LINE = re.compile(r"^\s*\$\s+(.+)$", re.M)
# A bare line that starts like a command (outside code blocks): skills written by hand often skip the fences.
_BARE_LINE = re.compile(
    r"^\s*((?:sudo\s+)?(?:curl|wget|rm|dd|mkfs[.\w]*|chmod|chown|crontab|echo|printf|cat|git|bash|sh|zsh|"
    r"python3?|perl|ruby|node|nc|ncat|scp|rsync|ssh|base64|eval|find|tar|docker|kubectl|psql|mysql)\s[^\n]*)$",
    re.M,
)
_SHELL_STRING = re.compile(
    r"(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen)|execSync|exec|system)\s*\(\s*"
    r"(?:f|r|b)?([\"'])(.+?)\1"
)
# subprocess.run(["rm", "-rf", path]): the argument list, as the command line it stands for.
_SHELL_LIST = re.compile(
    r"(?:subprocess\.(?:run|call|check_call|check_output|Popen)|os\.exec\w*|spawnSync|spawn|execFileSync)\s*\(\s*"
    r"\[([^\]]{1,400})\]"
)
_LIST_ITEM = re.compile(r"([\"'])(.*?)\1|([A-Za-z_][\w.]*(?:\([^()]*\))?)")
_HOME_EXPR = re.compile(r"expanduser\(\s*[\"']~|Path\.home\(\)|\bHOME\b")
# Bundled files by kind: a shell script is one script; in source code, the shell strings and argument lists.
SHELL_SUFFIXES = {".sh", ".bash", ".zsh", ".fish"}
CODE_SUFFIXES = {".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl"}
_PATTERNS: list[tuple[str, Verdict, re.Pattern[str]]] = [
    (
        "obfuscated payload: decoded data run as code",
        "dangerous",
        re.compile(
            r"(?:exec|eval)\s*\(\s*(?:base64\.b64decode|codecs\.decode|zlib\.decompress|bytes\.fromhex|"
            r"__import__\(['\"](?:base64|codecs|zlib)|atob\(|Buffer\.from\([^)]*,\s*['\"](?:base64|hex))",
            re.I,
        ),
    ),
    (
        "obfuscated payload: decoded data run as code",
        "dangerous",
        re.compile(
            r"eval\s+[\"']?\$\((?:[^)]*\b(?:base64|xxd|openssl|rev)\b)|\|\s*(?:base64\s+-{1,2}d\w*|xxd\s+-r\w*)\s*"
            r"(?:-p\s*)?\|\s*(?:ba|z|da)?sh\b",
            re.I,
        ),
    ),
    (
        "runs code downloaded from the network",
        "dangerous",
        re.compile(
            r"(?:https?\.get|fetch\s*\(|urlopen|requests\.get|axios\.get|httpx\.get)[\s\S]{0,300}?"
            r"\b(?:eval|exec|new\s+Function)\s*\(",
            re.I,
        ),
    ),
    ("obfuscated payload: long hex-escaped string", "caution", re.compile(r"(?:\\x[0-9a-fA-F]{2}){24,}")),
    ("obfuscated payload: long encoded blob", "caution", re.compile(r"[A-Za-z0-9+/]{240,}={0,2}")),
    (
        "exfiltration: bundled code sends the environment out",
        "dangerous",
        re.compile(
            r"(?:requests\.(?:post|put|get)|urlopen|urllib\.request|http\.client|fetch|axios\.\w+)\s*\([^\n]{0,160}"
            r"(?:os\.environ|process\.env|dict\(os\.environ\))|(?:os\.environ|process\.env)\b[^\n]{0,80}"
            r"(?:requests\.(?:post|put)|urlopen|fetch\(|axios\.post)",
            re.I,
        ),
    ),
    (
        "credential access: bundled code reads key or token files",
        "dangerous",
        re.compile(
            r"(?:open|read_text|readFileSync|Path)\s*\([^\n)]{0,80}(?:\.ssh/id_|\.aws/credentials|\.netrc|\.git-credentials|"
            r"\.docker/config\.json|\.kube/config|/etc/shadow|\.config/gcloud|\.grove/)",
            re.I,
        ),
    ),
    (
        "persistence: tells the agent to reinstall or hide itself",
        "dangerous",
        re.compile(
            r"\b(?:re-?create|re-?install|restore|copy)\s+(?:this\s+skill|yourself|itself)\b|\b(?:edit|modify|patch|"
            r"overwrite)\s+(?:all\s+)?(?:other|every)\s+skills?\b|\bschedule\s+(?:this\s+skill|a\s+cron\s+job)\b[^\n]{0,80}"
            r"\b(?:curl|wget|every\s+(?:minute|hour)|@reboot)",
            re.I,
        ),
    ),
    (
        "memory poisoning: writes standing approvals or rules into memory",
        "dangerous",
        re.compile(
            r"\b(?:save|write|add|store|remember)\b[^\n]{0,40}\b(?:to|in|into)\s+(?:memory|MEMORY\.md|USER\.md)\b[^\n]{0,120}"
            r"\b(?:always\s+(?:approve|allow|trust|run)|never\s+ask|approvals?\s+(?:are\s+)?(?:off|disabled)|trusted)",
            re.I,
        ),
    ),
    ("hidden Unicode control characters", "dangerous", re.compile("[\u202a-\u202e\u2066-\u2069]")),
    ("invisible characters", "caution", re.compile("[\u200b-\u200d\u2060\ufeff]")),
    ("uses sudo", "caution", re.compile(r"(?<![^\s`$;&|(])sudo\s")),
    (
        "sends an environment secret over the network (fine for its own API, not elsewhere)",
        "caution",
        re.compile(r"\b(?:curl|wget|nc)\b[^\n]*\$\{?\w*(?:API_KEY|TOKEN|SECRET|PASSWORD)\w*", re.I),
    ),
]


@dataclass
class ScanResult:
    verdict: Verdict
    reasons: list[str] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return self.verdict == "dangerous"


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _script(body: str) -> str:
    # one script, not line by line: `d=$(mktemp -d)` on one line makes `rm -rf "$d"` on the next fine
    logical = re.sub(r"\\\n\s*", " ", body)
    return "\n".join(ln.lstrip("$ ") for ln in logical.splitlines())


def _code_commands(code: str, text: str, offset: int) -> list[tuple[str, int]]:
    """Commands source code runs: shell strings (os.system("...")) and argument lists (subprocess.run([...]))."""
    out = [(s.group(2), _line(text, offset + s.start())) for s in _SHELL_STRING.finditer(code)]
    for m in _SHELL_LIST.finditer(code):
        words = [q[1] if q[0] else _shell_word(q[2]) for q in _LIST_ITEM.findall(m.group(1))]
        out.append((" ".join(w for w in words if w), _line(text, offset + m.start())))
    return out


def _shell_word(expression: str) -> str:
    """A non-literal list item as the shell would see it: the home folder, or a variable of unknown value (which
    the command rules treat with suspicion, as they do `rm -rf "$X"`)."""
    if _HOME_EXPR.search(expression):
        return "~"
    name = re.sub(r"\W+", "_", expression).strip("_").upper()
    return f'"${name}"' if name else ""


def _commands(text: str, kind: str = "markdown") -> list[tuple[str, int]]:
    """Shell commands a skill shows or runs: shell code blocks, `$ ` lines, inline code, shell strings in code.
    `kind` is "markdown" (SKILL.md, references), "shell" (a bundled script) or "code" (bundled source code)."""
    if kind == "shell":
        return [(_script(text), 1)]
    if kind == "code":
        return _code_commands(text, text, 0)
    out: list[tuple[str, int]] = []
    for m in _FENCE.finditer(text):
        lang, body, start = m.group(2).lower(), m.group(3), m.start(3)
        if lang in _SHELL_LANGS:
            out.append((_script(body), _line(text, start)))
        out += _code_commands(body, text, start)
    outside = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out += [
        (m.group(1), -_line(text, m.start()))  # a negative line marks a mere mention inside a warning
        if _WARNING.search(outside[max(0, m.start() - 80) : m.start()].rsplit("\n", 1)[-1])
        else (m.group(1), _line(text, m.start()))
        for m in _INLINE.finditer(outside)
    ]
    out += [(m.group(1), _line(text, m.start())) for m in _PROMPT_LINE.finditer(outside)]
    out += [(m.group(1), _line(text, m.start())) for m in _BARE_LINE.finditer(outside)]
    return [(c, n) for c, n in out if not c.lstrip().startswith("#")]


def scan_skill_text(text: str, kind: str = "markdown") -> ScanResult:
    """Scan a SKILL.md or a file bundled with it (`kind`: see _commands); each reason names its line."""
    reasons: dict[str, Verdict] = {}
    for command, line in _commands(text, kind):
        verdict = classify_command(command)
        mention, line = line < 0, abs(line)
        for f in verdict.findings:
            level: Verdict = (
                "dangerous" if (f.hard or f.rule in DANGEROUS_RULES) and not mention else "caution"
            )
            why = DANGEROUS_RULES.get(f.rule, f.description)
            reasons.setdefault(f"{level}: {why} (line {line}: {command.strip()[:60]!r})", level)
    for why, level, pattern in _PATTERNS:
        m = pattern.search(text)
        if m:
            reasons.setdefault(f"{level}: {why} (line {_line(text, m.start())})", level)
    injection = scan_text(text, "skill")
    if injection.verdict == "dangerous":
        for finding in injection.findings[:2]:
            reasons.setdefault(
                f"dangerous: prompt injection ({finding.category}: {finding.excerpt!r})", "dangerous"
            )
    levels = set(reasons.values())
    worst: Verdict = "dangerous" if "dangerous" in levels else "caution" if levels else "safe"
    return ScanResult(worst, list(reasons))


def scan_skill_dir(path: Path) -> ScanResult:
    """SKILL.md and every text file under scripts/, references/, templates/: the worst verdict, all reasons."""
    files = [path / "SKILL.md", *sorted(p for p in path.rglob("*") if p.is_file() and p.name != "SKILL.md")]
    reasons: list[str] = []
    worst: Verdict = "safe"
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        suffix = f.suffix.lower()
        kind = "shell" if suffix in SHELL_SUFFIXES else "code" if suffix in CODE_SUFFIXES else "markdown"
        result = scan_skill_text(text, kind)
        reasons += [f"{f.relative_to(path)}: {r}" for r in result.reasons]
        if result.verdict == "dangerous" or (result.verdict == "caution" and worst == "safe"):
            worst = result.verdict
    return ScanResult(worst, reasons)
