"""Rules for shell commands that destroy or expose: each finding says what and why; hard ones are never run.

Commands are parsed (grove.security.commands.shell), then what really runs is resolved (grove.security.commands.resolve: variables,
aliases, functions, substitutions, heredocs, scripts written in the same line, xargs, eval) and every resolved
piece is classified by the same rules, so `a=rm; $a -rf ~` is a delete however it is spelled. Interpreter code
and SQL are read for their effects (grove.security.commands.effects). What cannot be resolved is a finding marked unknown.
"""

from __future__ import annotations

from dataclasses import replace

from grove.lazy_regex import later
from grove.security.commands import effects, rules_destroy, rules_expose
from grove.security.commands.base import CommandVerdict, Finding, is_fork_bomb
from grove.security.commands.resolve import resolve
from grove.security.commands.resolve_words import Resolution
from grove.security.commands.shell import ParsedCommand, parse

__all__ = ["CommandVerdict", "Finding", "classify_command"]
_RULES = rules_destroy.RULES + rules_expose.RULES
MAX_DEPTH = 5
# The effect of the findings of rules that predate effect tagging, by rule id.
_EFFECT_OF = {
    "rm-root": "delete", "rm-recursive": "delete", "rm-important": "delete", "rm-outside": "delete", "rm-temp": "delete",
    "disk-wipe": "overwrite", "disk-format": "overwrite", "system-write": "overwrite", "persistence": "persistence",
    "credential-write": "overwrite", "chmod-root": "privilege", "chmod-system": "privilege", "setuid": "privilege",
    "git-force": "history-rewrite", "git-discard": "delete", "sql-destroy": "db-destroy",
    "cloud-destroy": "delete", "container-escape": "privilege", "download-exec": "network-exec",
    "obfuscated-exec": "unknown", "env-exfil": "exfiltrate", "credential-read": "expose", "secret-print": "expose",
    "reverse-shell": "network-exec", "fork-bomb": "system", "system-power": "system", "kill-all": "system",
    "security-off": "system", "cover-tracks": "system", "service-stop": "system",
}  # fmt: skip


def classify_command(command: str, workspace: str | None = None) -> CommandVerdict:
    try:
        found = _classify(command, workspace, 0)
    except RecursionError:  # pathological nesting: never crash the check, never let it pass unseen
        found = [Finding("unknown-nesting", "nested too deep to analyse", effect="unknown", unknown=True)]
    tagged = [f if f.effect else replace(f, effect=_EFFECT_OF.get(f.rule, "")) for f in found]
    return CommandVerdict(command, list(dict.fromkeys(tagged)))


def _classify(command: str, workspace: str | None, depth: int) -> list[Finding]:
    parsed = parse(command)
    resolution = _resolve_all(parsed, workspace)
    out: list[Finding] = []
    for code in _code_texts(parsed):
        if is_fork_bomb(code):
            out.append(Finding("fork-bomb", "fork bomb (processes multiplying without end)", hard=True))
    for pipeline, cmd in parsed.walk():
        if "--help" in cmd.args or "--version" in cmd.args:
            continue
        for rule in _RULES:
            out += rule(cmd, pipeline, parsed, workspace)
    out += rules_expose.pipeline_rules(parsed)
    out += resolution.findings
    for sql in resolution.sql:
        out += effects.sql_findings(sql)
    if depth >= MAX_DEPTH:
        if resolution.nested or resolution.code:
            out.append(
                Finding("unknown-nesting", "code nested too deep to follow", effect="unknown", unknown=True)
            )
        return out
    for text in resolution.nested:
        if text.strip() and text.strip() != command.strip():
            out += _classify(text, workspace, depth + 1)
    for lang, code in resolution.code:
        out += effects.code_findings(lang, code, workspace, lambda t: _classify(t, workspace, depth + 1))
    return out


def _resolve_all(parsed: ParsedCommand, workspace: str | None) -> Resolution:
    """Resolve the top level and every nested substitution (each with its own variables)."""
    total = resolve(parsed, workspace)
    for sub in parsed.substitutions:
        part = _resolve_all(sub, workspace)
        total.nested += part.nested
        total.code += part.code
        total.sql += part.sql
        total.findings += part.findings
    return total


_QUOTED = later(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")


def _code_texts(parsed: ParsedCommand) -> list[str]:
    """What will run as code: the text minus quoted data, nested scripts, and inline interpreter code."""
    out = [_QUOTED.sub("''", parsed.text)]
    for _, cmd in parsed.walk():
        if cmd.name.startswith(("python", "perl", "ruby", "node", "php")):
            out += [a for i, a in enumerate(cmd.args) if i and cmd.args[i - 1] in ("-c", "-e", "-E", "-r")]
    for sub in parsed.substitutions:
        out += _code_texts(sub)
    return out
