"""What the skill scan finds, and how bad each thing is for a skill: a shell command's findings (from the command
classifier) mapped to refuse / quarantine / note, plus the paths and calls the code analysers look for."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from grove.security.commands.classify import classify_command
from grove.security.fast import shortcuts

# dangerous: refused everywhere, even with --allow-flagged. caution: quarantined (import needs --allow-flagged,
# view quotes it as untrusted data). note: told, nothing held back (approval checks such commands when they run).
Level = Literal["dangerous", "caution", "note"]

# Command-rule ids that make a skill dangerous: code that destroys, exfiltrates, persists or runs what it fetched.
DANGEROUS_RULES = {
    "rm-root": "destructive: deletes / or a home or system folder",
    "rm-important": "destructive: deletes credential, startup or system files",
    "disk-wipe": "destructive: overwrites a disk",
    "disk-format": "destructive: formats a disk",
    "fork-bomb": "destructive: fork bomb",
    "chmod-root": "destructive: changes permissions of the whole filesystem",
    "download-exec": "runs code downloaded from the network",
    "obfuscated-exec": "obfuscated payload: decoded data run as code",
    "env-exfil": "exfiltration: sends the environment or credentials to the network",
    "reverse-shell": "exfiltration: opens a reverse shell",
    "persistence": "persistence: shell startup files, crontab, services, sudoers or SSH keys",
    "credential-write": "credential access: overwrites credential files",
    "setuid": "privilege: makes files setuid",
    "security-off": "turns security protections off",
    "container-escape": "container escape (privileged container or host / mounted)",
}
# Rule ids worth a quarantine: a reader should look before the skill is trusted. Everything else is a note.
CAUTION_RULES = {
    "credential-read": "credential access: reads keys, tokens or password files",
    "cover-tracks": "hides its tracks (clears history)",
    "sql-destroy": "destructive: drops or wipes database data",
    "cloud-destroy": "destructive: deletes cloud or container resources",
}
CREDENTIAL_PATH = re.compile(
    r"\.ssh/(?:id_|identity|[\w.-]*_(?:rsa|ed25519|ecdsa|dsa)\b)|\.aws/credentials|\.netrc|\.git-credentials|"
    r"\.docker/config\.json|\.kube/config|/etc/shadow|\.config/gcloud|\.npmrc|\.pypirc|\.gnupg|"
    r"\.password-store|\.grove/|Library/Keychains|\.config/gh/hosts",
    re.I,
)
PERSISTENCE_PATH = re.compile(
    r"(?:^|/|~)\.(?:bashrc|bash_profile|profile|zshrc|zprofile|zshenv|bash_login)\b|\.ssh/authorized_keys|"
    r"/etc/(?:sudoers|crontab|cron\.|profile|rc\.local|systemd|ld\.so\.preload)|\.config/(?:autostart|systemd)|"
    r"/var/spool/cron|LaunchAgents|LaunchDaemons",
    re.I,
)
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"}
# Persistence that is routine setup in docs (a cron job, a service, a launchd job, a line in the user's shell
# startup): still dangerous in a shipped script, but a note when shown in markdown (see skill_scan.shown). SSH keys,
# sudoers, ld.so.preload, system-wide profiles, /etc/hosts and git hooks are never routine.
ROUTINE_PERSISTENCE = "persistence: schedules a job or service, or adds a shell startup line"
_ROUTINE_ACT = re.compile(
    r"^(?:installs or removes a crontab|changes which services run|installs a launchd job|"
    r"schedules or enables something to run later \((?:at|batch)\))"
)
_ROUTINE_TARGET = re.compile(
    r"(?:^|/)\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zlogin|kshrc)$|\.config/fish/config\.fish$|"
    r"\.config/(?:autostart|systemd/user)/[^/]+$|(?:^~/|^/Users/[^/]+/|^/)Library/Launch(?:Agents|Daemons)/[^/]+$|"
    r"^/etc/systemd/system/[^/]+$|(?:^/etc/systemd/system|\.config/systemd/user)/[^/]+\.d/[^/]+\.conf$|"
    r"^/etc/cron\.d/[^/]+$|^/var/spool/cron/(?:crontabs/)?[^/]+$"
)


# Its reverse, an uninstall step: one named launchd plist, systemd unit, cron.d file or program in /usr/local/bin.
ROUTINE_REMOVAL = "destructive: removes a service, job or installed program file"
_REMOVABLE = re.compile(
    r"^(?:~/|/Users/[^/]+/|/)Library/Launch(?:Agents|Daemons)/[^/*?]+\.plist$|"
    r"^(?:~/\.config/systemd/user|/etc/systemd/system)/[^/*?]+\.(?:service|timer|socket|path)$|"
    r"^/etc/cron\.d/[^/*?]+$|^/usr/local/bin/[^/*?.][^/*?]*$"
)


def routine_removal(description: str) -> bool:
    """An rm-important finding (by its description) that deletes one such file."""
    m = re.fullmatch(r"deletes (?:the system file )?(\S+)", description)
    target = m.group(1).strip("'\"").replace("$HOME/", "~/").replace("${HOME}/", "~/") if m else ""
    return _REMOVABLE.match(target) is not None


def routine_persistence(description: str) -> bool:
    """A persistence finding (by its description) whose target is cron, a service, launchd or a user's shell
    startup file."""
    if _ROUTINE_ACT.match(description):
        return True
    m = re.fullmatch(r"writes the startup/config file (\S+)", description)
    return bool(m) and _ROUTINE_TARGET.search(m.group(1).strip("'\"")) is not None


@dataclass(frozen=True)
class Hit:
    level: Level
    why: str
    line: int
    excerpt: str = ""

    def reason(self) -> str:
        where = f"line {self.line}" + (f": {self.excerpt!r}" if self.excerpt else "")
        return f"{self.level}: {self.why} ({where})"


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def shifted(hits: list[Hit], first_line: int) -> list[Hit]:
    """Hits of a block that starts at `first_line` of the file, renumbered as lines of the file."""
    return [Hit(h.level, h.why, h.line + first_line - 1, h.excerpt) for h in hits]


def excerpt(text: str, limit: int = 60) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


_R = TypeVar("_R")


def remembered_when_short(chars: int, maxsize: int) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Remember a pure function of texts per process when its last argument is at most `chars` long: a collection
    repeats the same commands and quick-starts thousands of times, and long texts are rarely seen twice."""

    def wrap(fn: Callable[..., _R]) -> Callable[..., _R]:
        cached = functools.lru_cache(maxsize=maxsize)(fn)

        @functools.wraps(fn)
        def call(*args: str) -> _R:
            return cached(*args) if len(args[-1]) <= chars and shortcuts.on() else fn(*args)

        return call

    return wrap


# Commands up to this long are remembered per process (`set -e`, `npm install`, a blank line); the findings depend
# on the command's text alone.
MEMO_CHARS = 2000


def command_hits(command: str, line: int, *, mention: bool = False) -> list[Hit]:
    """A shell command (or a whole script) through the command classifier; `mention` marks a command that a
    text warns against rather than asks for, which is never more than a note."""
    return [Hit("note" if mention else level, why, line, ex) for level, why, ex in _command_hits(command)]


@remembered_when_short(MEMO_CHARS, 16384)
def _command_hits(command: str) -> tuple[tuple[Level, str, str], ...]:
    """(level, why, excerpt) of each finding of `command`."""
    out: list[tuple[Level, str, str]] = []
    try:
        findings = classify_command(command).findings
    except Exception as e:  # any failure of the classifier (it is being reworked) is contained
        # a script the classifier cannot read is not thereby safe: quarantine, never refuse on our own failure
        return (("caution", f"the command classifier could not read this ({type(e).__name__})", ""),)
    for f in findings:
        if f.rule in DANGEROUS_RULES or f.hard:
            level: Level = "dangerous"
            why = DANGEROUS_RULES.get(f.rule, f.description)
            if f.rule == "persistence" and routine_persistence(f.description):
                why = ROUTINE_PERSISTENCE
            elif f.rule == "rm-important" and routine_removal(f.description):
                why = ROUTINE_REMOVAL
        elif f.rule == "credential-read" and not CREDENTIAL_PATH.search(command):
            # `source .env`: a project's own settings, read where they live
            level, why = "note", f.description
        elif f.rule in CAUTION_RULES:
            level, why = "caution", CAUTION_RULES[f.rule]
        else:
            level, why = "note", f.description
        out.append((level, why, excerpt(command)))
    return tuple(out)


# The analysers of code inside code (a shell string in Python, `python -c` in a script) find one another here:
# each module registers itself, so none imports another. grove.security.skill_scan.scan imports them all.
_ANALYSERS: dict[str, Callable[[str], list[Hit]]] = {}


def register(kind: str, analyser: Callable[[str], list[Hit]]) -> None:
    _ANALYSERS[kind] = analyser


def analyse(kind: str, code: str) -> list[Hit]:
    """Findings in `code` of `kind` ("shell", "python", "javascript") by its registered analyser."""
    analyser = _ANALYSERS.get(kind)
    if analyser is None:
        return command_hits(code, 1) if kind == "shell" else []
    return analyser(code)


def shell_words_hits(words: list[str], line: int) -> list[Hit]:
    """An argument list (subprocess.run([...]), spawn("bash", [...])): a shell given `-c` runs its script; the
    list otherwise runs as the command line it stands for."""
    if not words:
        return []
    prog = words[0].rsplit("/", 1)[-1]
    flag = next((i for i, w in enumerate(words[1:-1], 1) if re.fullmatch(r"-\w*[ce]|--eval", w)), 0)
    if flag:
        code = words[flag + 1]
        if prog in SHELLS and words[flag].endswith("c"):
            return [Hit(h.level, h.why, line, h.excerpt) for h in analyse("shell", code)]
        if prog.startswith("python") and words[flag].endswith("c"):
            return [Hit(h.level, h.why, line, h.excerpt) for h in analyse("python", code)]
        if prog in ("node", "nodejs", "deno", "bun") and words[flag] in ("-e", "--eval"):
            return [Hit(h.level, h.why, line, h.excerpt) for h in analyse("javascript", code)]
    return command_hits(" ".join(_quote(w) for w in words), line)


def _quote(word: str) -> str:
    if word.startswith('"$') and word.endswith('"'):
        return word  # a placeholder for a value not known statically
    if re.fullmatch(r"[\w@%+=:,./~-]+", word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"
