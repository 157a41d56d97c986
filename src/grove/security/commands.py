"""Rules for shell commands that destroy or expose: each finding says what and why; hard ones are never run.

Commands are parsed (grove.security.shell) rather than matched as whole strings, so `grep -r "rm -rf /" docs`
is not a delete and `sudo env X=1 rm -rf ~` is. The rules live in rules_destroy and rules_expose."""

from __future__ import annotations

import re

from grove.security import rules_destroy, rules_expose
from grove.security.command_base import FORK_BOMB, CommandVerdict, Finding
from grove.security.shell import ParsedCommand, parse

__all__ = ["CommandVerdict", "Finding", "classify_command"]
_RULES = rules_destroy.RULES + rules_expose.RULES


def classify_command(command: str, workspace: str | None = None) -> CommandVerdict:
    parsed = parse(command)
    out: list[Finding] = []
    for code in _code_texts(parsed):
        if FORK_BOMB.search(re.sub(r"\s+", "", code)) or FORK_BOMB.search(code):
            out.append(Finding("fork-bomb", "fork bomb (processes multiplying without end)", hard=True))
    for pipeline, cmd in parsed.walk():
        if {"--help", "--version"} & set(cmd.args):
            continue
        for rule in _RULES:
            out += rule(cmd, pipeline, parsed, workspace)
    out += rules_expose.pipeline_rules(parsed)
    return CommandVerdict(command, list(dict.fromkeys(out)))


_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")


def _code_texts(parsed: ParsedCommand) -> list[str]:
    """What will run as code: the text minus quoted data, nested scripts, and inline interpreter code."""
    out = [_QUOTED.sub("''", parsed.text)]
    for _, cmd in parsed.walk():
        if cmd.name.startswith(("python", "perl", "ruby", "node", "php")):
            out += [a for i, a in enumerate(cmd.args) if i and cmd.args[i - 1] in ("-c", "-e", "-E", "-r")]
    for sub in parsed.substitutions:
        out += _code_texts(sub)
    return out
