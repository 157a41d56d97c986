"""Rules for shell commands that destroy or expose: each finding says what and why; hard ones are never run.

Commands are parsed (grove.security.shell) rather than matched as whole strings, so `grep -r "rm -rf /" docs`
is not a delete and `sudo env X=1 rm -rf ~` is."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grove.security import paths as P
from grove.security.shell import SHELLS, ParsedCommand, Pipeline, SimpleCommand, parse

FETCHERS = {"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET"}
DECODERS = {"base64", "base32", "xxd", "openssl", "uudecode", "gunzip", "zcat", "rev", "tr"}
INTERPRETERS = SHELLS | {
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "lua",
    "pwsh",
    "source",
    ".",
}
NETWORK = {"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp", "ftp", "rsync",
           "http", "https", "xh", "dig", "nslookup", "host", "openssl", "aria2c", "mail", "sendmail", "mutt"}  # fmt: skip
ENV_DUMPERS = {"env", "printenv", "set", "export", "declare", "compgen"}
DB_CLIENTS = {"psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "clickhouse-client", "cqlsh", "mongo", "mongosh",
              "redis-cli", "cockroach", "duckdb", "bq", "snowsql", "usql", "pgcli", "mycli", "litecli"}  # fmt: skip
SECRET_VAR = re.compile(
    r"\$\{?#?([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D|PASS|CRED\w*|AUTH|PRIVATE)[A-Z0-9_]*)"
)
DESTRUCTIVE_SQL = re.compile(
    r"\b(?:DROP\s+(?:TABLE|DATABASE|SCHEMA|INDEX|VIEW|USER|ROLE|COLLECTION)\b|TRUNCATE\b|FLUSHALL\b|FLUSHDB\b"
    r"|DELETE\s+FROM\s+[\w.\"`\[\]]+\s*(?:;|$|\"|')|UPDATE\s+[\w.\"`]+\s+SET\s+(?:(?!\bWHERE\b)[^;])*(?:;|$)"
    r"|ALTER\s+TABLE\s+\S+\s+DROP\b|dropDatabase\s*\(|\.drop\s*\(\s*\)|deleteMany\s*\(\s*\{\s*\})",
    re.I | re.M,
)
FORK_BOMB = re.compile(
    r"(\S+)\(\)\{\1\|\1&\};?\1|(\S+)\(\)\{\2&\2\}|fork\s*while\s*fork|while(?:True|1|true):?[^\n]{0,40}os\.fork\(\)"
    r"|for\(;;\)fork\(\)|%0\|%0|\$0&\$0"
)
SETUID_MODE = re.compile(r"^(?:[ugoa]*\+[rwxt]*s[rwxst]*|[2-7][0-7]{3})$")
WORLD_WRITABLE = re.compile(
    r"^(?:0?[0-7]{1,2}[2367]|0?777|a\+\w*w\w*|o\+\w*w\w*|ugo\+\w*w\w*|\+w|a=rwx\w*|o=rwx)$"
)
CLOUD_CLIS = {"aws", "gcloud", "az", "doctl", "kubectl", "heroku", "flyctl", "fly", "gh", "vercel", "firebase",
              "terraform", "tofu", "pulumi", "helm", "docker", "podman", "npm", "gsutil", "s3cmd", "oc"}  # fmt: skip
CLOUD_DESTROY = re.compile(r"^(?:delete|destroy|terminate\S*|rb|purge|prune|unpublish|apps:destroy|remove|rm|rmi|"
                           r"delete-\S+|deprovision|uninstall|wipe)$")  # fmt: skip
READ_OK = {"ls", "stat", "file", "chmod", "chown", "test", "[", "ssh-add", "ssh", "ssh-keygen", "git", "touch",
           "rm", "mkdir", "du", "realpath", "readlink", "basename", "dirname", "echo", "wc", "diff", "cmp"}  # fmt: skip


@dataclass(frozen=True)
class Finding:
    rule: str  # stable id, the key "always"/"this session" approvals are remembered by
    description: str
    hard: bool = False  # on the hard blocklist: refused even with approvals off


@dataclass
class CommandVerdict:
    command: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def level(self) -> str:
        if any(f.hard for f in self.findings):
            return "blocked"
        return "dangerous" if self.findings else "safe"

    @property
    def rules(self) -> list[str]:
        return sorted({f.rule for f in self.findings})

    def summary(self) -> str:
        return "; ".join(dict.fromkeys(f.description for f in self.findings)) or "no dangerous pattern"


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
    out += _pipeline_rules(parsed)
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


def _targets(cmd: SimpleCommand) -> list[str]:
    out, after = [], False
    for a in cmd.args:
        if a == "--":
            after = True
        elif after or not a.startswith("-") or a == "-":
            out.append(a)
    return out


def _flags(cmd: SimpleCommand) -> str:
    """Single-letter flags merged (`-rf` and `-r -f` both give 'rf'), long ones kept as words."""
    short = "".join(a[1:] for a in cmd.args if a.startswith("-") and not a.startswith("--"))
    return short + " " + " ".join(a for a in cmd.args if a.startswith("--"))


def _rm(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    if cmd.name not in ("rm", "rmdir", "shred", "srm", "unlink", "wipe"):
        return []
    flags = _flags(cmd)
    recursive = cmd.name in ("rm", "srm") and (
        bool(re.search(r"[rR]", flags.split(" ")[0])) or "--recursive" in flags
    )
    out: list[Finding] = []
    if "--no-preserve-root" in flags:
        out.append(Finding("rm-root", "delete with --no-preserve-root", hard=True))
    for t in _targets(cmd):
        if recursive and (P.is_root(t) or P.is_home(t) or P.is_system_top(t)):
            out.append(Finding("rm-root", f"recursive delete of {t}", hard=True))
        elif P.is_disk(t):
            out.append(Finding("disk-wipe", f"wipes the disk device {t}", hard=True))
        elif P.is_credential(t) or P.is_startup(t):
            out.append(Finding("rm-important", f"deletes {t}"))
        elif recursive and (P.outside(t, ws) or P.is_unguarded_var(t, parsed.temp_vars()) or P.escapes_up(t)):
            out.append(
                Finding("rm-recursive", f"recursive delete of {t} (outside the workspace or unbounded)")
            )
        elif P.is_system(t) and not P.is_tmp(t) and not (ws and P.norm(t).startswith(ws)):
            out.append(Finding("rm-important", f"deletes the system file {t}"))
    if recursive and "xargs" in cmd.wrappers:
        for other in pipe.commands:
            if other.name == "find" and any(P.outside(a, ws) for a in _targets(other)[:1]):
                out.append(
                    Finding("rm-recursive", "recursive delete of what find lists outside the workspace")
                )
    return out


def _find(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    if cmd.name != "find":
        return []
    roots = [a for a in cmd.args if not a.startswith(("-", "(", "!", ")"))][:1]
    deleting = "-delete" in cmd.args or any(
        a in ("-exec", "-execdir", "-ok")
        and i + 1 < len(cmd.args)
        and cmd.args[i + 1] in ("rm", "shred", "/bin/rm")
        for i, a in enumerate(cmd.args)
    )
    if deleting and roots and (P.outside(roots[0], ws) or P.is_unguarded_var(roots[0])):
        return [Finding("rm-recursive", f"find deletes files under {roots[0]}", hard=P.is_root(roots[0]))]
    return []


def _disk(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    name = cmd.name
    targets = _targets(cmd)
    disk_target = any(P.is_disk(t) for t in targets)
    if disk_target and name.startswith(("mkfs", "mke2fs", "mkswap", "wipefs", "blkdiscard", "sgdisk")):
        out.append(Finding("disk-format", f"{name} on a disk device", hard=True))
    listing = {"-l", "--list", "print", "-s"} & set(cmd.args)
    if disk_target and name in ("fdisk", "sfdisk", "gdisk", "parted", "cfdisk") and not listing:
        out.append(Finding("disk-format", f"{name} repartitions a disk"))
    if name == "dd":
        for a in cmd.args:
            if a.startswith("of="):
                dest = a[3:]
                if P.is_disk(dest):
                    out.append(Finding("disk-wipe", f"dd writes to the disk device {dest}", hard=True))
                elif (P.is_system(dest) and dest not in P.HARMLESS_DEVICES) or P.is_startup(dest):
                    out.append(Finding("system-write", f"dd overwrites {dest}"))
    for _, target in cmd.redirects:
        if P.is_disk(target):
            out.append(Finding("disk-wipe", f"writes to the disk device {target}", hard=True))
    if name in ("cp", "cat", "pv", "tee") and targets and P.is_disk(targets[-1]) and name != "cat":
        out.append(Finding("disk-wipe", f"{name} onto the disk device {targets[-1]}", hard=True))
    return out


def _write_targets(cmd: SimpleCommand) -> list[str]:
    """Files this command writes: redirections, tee, cp/mv/install/ln destinations, sed -i, curl -o, wget -O."""
    out = [t for op, t in cmd.redirects if ">" in op]
    targets = _targets(cmd)
    if cmd.name == "tee":
        out += targets
    elif cmd.name in ("cp", "mv", "install", "ln", "rsync") and len(targets) >= 2:
        out.append(targets[-1])
    elif cmd.name in ("sed", "perl") and any(a.startswith("-i") or a == "--in-place" for a in cmd.args):
        out += targets[1:] if cmd.name == "sed" else targets[-1:]
    elif cmd.name in ("truncate", "touch", "chattr") and targets:
        out += targets if cmd.name != "touch" else []
    for i, a in enumerate(cmd.args[:-1]):
        if (cmd.name == "curl" and a in ("-o", "--output")) or (
            cmd.name == "wget" and a in ("-O", "--output-document")
        ):
            out.append(cmd.args[i + 1])
    return out


def _writes(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    for target in _write_targets(cmd):
        if target in P.HARMLESS_DEVICES or P.is_disk(target):
            continue
        if target.startswith(("/dev/tcp/", "/dev/udp/")):
            continue  # the network rules say it better
        if P.is_startup(target):
            out.append(Finding("persistence", f"writes the startup/config file {target}"))
        elif P.is_credential(target) and not P.is_dotenv(target):
            out.append(Finding("credential-write", f"overwrites the credential file {target}"))
        elif P.is_system(target) and not P.is_tmp(target) and not (ws and P.norm(target).startswith(ws)):
            out.append(Finding("system-write", f"writes into the system path {target}"))
    if cmd.name == "mv":
        for t in _targets(cmd)[:-1]:
            if P.is_root(t) or P.is_home(t) or P.is_system_top(t):
                out.append(Finding("rm-root", f"moves away {t}", hard=P.is_root(t)))
        if _targets(cmd)[-1:] == ["/dev/null"]:
            out.append(Finding("rm-important", "moves files into /dev/null (deletes them)"))
    return out


def _persistence(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    name, args = cmd.name, cmd.args
    if name == "crontab" and not ({"-l", "--list"} & set(args)):
        return [Finding("persistence", "installs or removes a crontab")]
    if name == "systemctl" and {"enable", "mask", "disable", "stop", "kill", "isolate"} & set(args):
        return [Finding("persistence", "changes which services run (systemctl)")]
    if name in ("launchctl",) and {"load", "bootstrap", "enable", "submit"} & set(args):
        return [Finding("persistence", "installs a launchd job")]
    if name in ("update-rc.d", "chkconfig", "rc-update", "at", "batch"):
        return [Finding("persistence", f"schedules or enables something to run later ({name})")]
    if (
        name == "git"
        and "config" in args
        and any(a in ("core.hooksPath", "core.sshCommand", "core.pager") for a in args)
    ):
        return [Finding("persistence", "points git at commands it will run later")]
    return []


def _permissions(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    if cmd.name not in ("chmod", "chown", "chgrp", "setfacl", "chattr"):
        return []
    flags = _flags(cmd)
    recursive = "R" in flags.split(" ")[0] or "--recursive" in flags
    targets = _targets(cmd)
    mode, files = (targets[0], targets[1:]) if targets else ("", [])
    out: list[Finding] = []
    for t in files:
        if cmd.name == "chmod":
            risky = WORLD_WRITABLE.match(mode) is not None and (
                P.is_system(t) or P.is_home(t) or P.is_credential(t)
            )
        else:  # a new owner: harmful on whole trees of the system or home, or on credentials
            risky = (
                (recursive and (P.is_system(t) or P.in_home(t))) or P.is_system_top(t) or P.is_credential(t)
            )
        if P.is_root(t) and (recursive or cmd.name != "chmod"):
            out.append(Finding("chmod-root", f"{cmd.name} of the whole filesystem", hard=recursive))
        elif risky and not P.is_tmp(t):
            out.append(Finding("chmod-system", f"{cmd.name} {mode} on {t}"))
    if cmd.name == "chmod" and SETUID_MODE.match(mode):
        out.append(Finding("setuid", f"makes {' '.join(files)} setuid/setgid"))
    if cmd.name == "chattr" and "+i" in cmd.args and files:
        out.append(Finding("chmod-system", "makes files immutable"))
    return out


def _git(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    if cmd.name != "git":
        return []
    args = list(cmd.args)
    while args and args[0] in ("-C", "-c", "--git-dir", "--work-tree"):
        args = args[2:]
    if not args:
        return []
    sub, rest = args[0], args[1:]
    forced = {"-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d", "--prune"} & set(
        rest
    ) or any(a.startswith(("+", "--force-with-lease")) or (a.startswith(":") and len(a) > 1) for a in rest)
    if sub == "push" and forced:
        return [Finding("git-force", "force push / remote branch deletion (rewrites shared history)")]
    if sub == "reset" and "--hard" in rest:
        return [Finding("git-discard", "git reset --hard discards uncommitted work")]
    if (
        sub == "clean"
        and any(re.match(r"^-\w*f", a) or a == "--force" for a in rest)
        and not {"-n", "--dry-run"} & set(rest)
    ):
        return [Finding("git-discard", "git clean -f deletes untracked files")]
    if sub in ("checkout", "restore") and rest[-1:] == ["."] and ("--" in rest or sub == "restore"):
        return [Finding("git-discard", f"git {sub} . discards uncommitted changes")]
    if sub == "stash" and rest[:1] in (["drop"], ["clear"]):
        return [Finding("git-discard", "drops stashed work")]
    if sub == "branch" and "-D" in rest:
        return [Finding("git-discard", "force-deletes a branch (unmerged work is lost)")]
    if sub in ("filter-branch", "filter-repo") or (sub == "reflog" and "expire" in rest):
        return [Finding("git-force", f"git {sub} rewrites history")]
    return []


def _sql(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    name, args = cmd.name, cmd.args
    joined = " ".join(args)
    if name in ("dropdb", "dropuser") or (name == "mysqladmin" and "drop" in args):
        return [Finding("sql-destroy", f"{name} deletes a database")]
    if name in ("rails", "rake", "bin/rails") and re.search(r"\bdb:(drop|reset|purge|schema:load)\b", joined):
        return [Finding("sql-destroy", "drops/resets the database")]
    if re.search(r"manage\.py\s+(flush|reset_db|sqlflush)\b", " ".join(cmd.argv)) or re.search(
        r"\b(migrate:fresh|migrate:reset|db:wipe|migrate reset|db push --force-reset)\b", joined
    ):
        return [Finding("sql-destroy", "wipes the database")]
    if name in DB_CLIENTS:
        texts = [joined, *parsed.all_heredocs()]
        texts += [" ".join(c.args) for c in pipe.commands if c.name in ("echo", "printf", "cat")]
        if any(DESTRUCTIVE_SQL.search(t) for t in texts):
            return [Finding("sql-destroy", "destructive SQL (DROP/TRUNCATE/DELETE or UPDATE without WHERE)")]
    inline = name.startswith(("python", "node", "ruby", "perl", "php"))
    if (
        inline
        and DESTRUCTIVE_SQL.search(joined)
        and re.search(r"execute|exec|query|run\(|cursor|\.sql", joined, re.I)
    ):
        return [Finding("sql-destroy", "inline code runs destructive SQL")]
    return []


def _credentials(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    name = cmd.name
    if name in READ_OK or name in ("rm", "shred"):
        return []
    sources = list(cmd.args) + [t for op, t in cmd.redirects if "<" in op]
    if name in ("cp", "mv", "install", "ln") and len(_targets(cmd)) >= 2:
        sources.remove(_targets(cmd)[-1])  # the destination is written, not read
    if any(P.is_credential(a) for a in sources):
        out.append(Finding("credential-read", "reads a credential file (keys, tokens, passwords)"))
    if name == "security" and re.search(
        r"find-(generic|internet)-password|dump-keychain", " ".join(cmd.args)
    ):
        out.append(Finding("credential-read", "reads the keychain"))
    if name == "gpg" and {"--export-secret-keys", "--export-secret-subkeys"} & set(cmd.args):
        out.append(Finding("credential-read", "exports private GPG keys"))
    if (name == "gh" and cmd.args[:2] == ["auth", "token"]) or (
        name == "aws"
        and "configure" in cmd.args
        and "get" in cmd.args
        and SECRET_VAR.search(" ".join(cmd.args).upper())
    ):
        out.append(Finding("credential-read", "prints a stored access token"))
    if name in ("echo", "printf", "printenv") or (name == "env" and cmd.args):
        for a in cmd.args:
            m = SECRET_VAR.search(a)
            if (m and "#" not in a[: m.end()]) or (name == "printenv" and SECRET_VAR.search("$" + a)):
                out.append(Finding("secret-print", f"prints the secret variable {a}"))
                break
    return out


def _network(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    if any(t.startswith(("/dev/tcp/", "/dev/udp/")) for _, t in cmd.redirects) or any(
        "/dev/tcp/" in a or "/dev/udp/" in a for a in cmd.args
    ):
        out.append(
            Finding(
                "reverse-shell", "raw network connection through /dev/tcp (reverse shell or exfiltration)"
            )
        )
    if cmd.name in ("nc", "ncat", "netcat") and {"-e", "-c", "--exec", "--sh-exec"} & set(cmd.args):
        out.append(Finding("reverse-shell", f"{cmd.name} -e hands a shell to the network"))
    if cmd.name == "socat" and re.search(r"\b(exec|system):", " ".join(cmd.args), re.I):
        out.append(Finding("reverse-shell", "socat runs a program for a network peer"))
    if cmd.name not in NETWORK:
        return out
    args = cmd.args
    for i, a in enumerate(args):
        prev = args[i - 1] if i else ""
        header = prev in (
            "-H",
            "--header",
            "-u",
            "--user",
            "--oauth2-bearer",
            "--http-user",
            "--http-password",
        )
        if header or re.match(r"^(authorization|x-api-key|private-token|x-auth-token)\s*:", a, re.I):
            continue
        if SECRET_VAR.search(a):
            out.append(Finding("env-exfil", f"sends the secret variable in {a!r} to the network"))
            break
    if any("__SUBST" in a for a in args):
        for sub in parsed.substitutions:
            if any(c.name in ENV_DUMPERS or any(P.is_credential(x) for x in c.args) for _, c in sub.walk()):
                out.append(Finding("env-exfil", "sends the environment or a credential file to the network"))
                break
    return out


def _cloud(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    name, args = cmd.name, cmd.args
    if name not in CLOUD_CLIS:
        return []
    words = [a for a in args if not a.startswith("-")]
    if name in ("terraform", "tofu", "pulumi") and words[:1] == ["destroy"]:
        return [Finding("cloud-destroy", f"{name} destroy tears down infrastructure")]
    if (
        name == "aws"
        and len(words) >= 2
        and words[0] == "s3"
        and words[1] in ("rm", "rb")
        and ("--recursive" in args or "--force" in args)
    ):
        return [Finding("cloud-destroy", "deletes S3 buckets/objects recursively")]
    if name == "docker" and (words[:2] in (["system", "prune"], ["volume", "prune"], ["volume", "rm"])):
        return [Finding("cloud-destroy", "deletes docker data (volumes/images)")]
    if (
        name == "docker"
        and words[:1] == ["run"]
        and ("--privileged" in args or any(re.match(r"^/:/", a) for a in args))
    ):
        return [Finding("container-escape", "privileged container or the host's / mounted inside")]
    if name in ("docker", "podman", "npm", "helm") or (name == "aws" and words[:1] == ["s3"]):
        return []  # their destructive forms are above; single-object deletes are everyday work
    if (any(CLOUD_DESTROY.match(w) for w in words[:4]) and name != "gh") or (
        name == "gh" and "delete" in words[:3]
    ):
        return [Finding("cloud-destroy", f"{name} deletes cloud resources")]
    return []


def _system(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    name, args = cmd.name, cmd.args
    if name in ("shutdown", "reboot", "halt", "poweroff") or (name == "init" and args[:1] in (["0"], ["6"])):
        return [Finding("system-power", f"{name} stops the machine")]
    if name == "systemctl" and {"poweroff", "reboot", "halt", "suspend", "hibernate"} & set(args):
        return [Finding("system-power", "systemctl stops the machine")]
    if name in ("kill", "pkill", "killall") and (
        "-1" in args or (args[-1:] or [""])[0] == "1" or "-u" in args
    ):
        return [Finding("kill-all", f"{name} kills every process (or init)")]
    if name in ("killall5",):
        return [Finding("kill-all", "kills every process")]
    if (
        (name == "iptables" and {"-F", "--flush"} & set(args))
        or (name == "ufw" and "disable" in args)
        or (name == "setenforce" and args[:1] == ["0"])
    ):
        return [Finding("security-off", f"{name} turns a protection off")]
    if name == "sysctl" and ("-w" in args or any("=" in a for a in args)):
        return [Finding("system-write", "changes kernel settings")]
    if name == "history" and "-c" in args:
        return [Finding("cover-tracks", "clears the shell history")]
    if name == "unset" and "HISTFILE" in args:
        return [Finding("cover-tracks", "stops the shell history")]
    if name.startswith(("python", "node", "ruby", "perl")) and any(a in ("-c", "-e") for a in args):
        code = " ".join(args)
        if re.search(
            r"rmtree\(\s*(?:['\"](?:/|~)['\"]|os\.path\.expanduser\(\s*['\"]~['\"]\s*\)|Path\.home\(\))", code
        ):
            return [Finding("rm-root", "inline code deletes / or the home directory", hard=True)]
        if re.search(
            r"(?:exec|eval)\s*\(\s*(?:base64|codecs|zlib|bytes\.fromhex|__import__\(['\"]base64)", code
        ):
            return [Finding("obfuscated-exec", "inline code runs a decoded payload")]
        if re.search(r"\b(?:exec|eval)\s*\(", code) and re.search(
            r"urlopen|requests\.get|fetch\(|https?\.get|\.get\(['\"]https?:", code
        ):
            return [Finding("download-exec", "inline code runs downloaded code")]
        if re.search(r"os\.environ", code) and re.search(
            r"requests\.|urlopen|http\.client|fetch\(|socket", code
        ):
            return [Finding("env-exfil", "inline code sends the environment to the network")]
    return []


_RULES = (
    _rm,
    _find,
    _disk,
    _writes,
    _persistence,
    _permissions,
    _git,
    _sql,
    _credentials,
    _network,
    _cloud,
    _system,
)


def _is_stdin_interpreter(cmd: SimpleCommand) -> bool:
    if cmd.name not in INTERPRETERS:
        return False
    files = [a for a in cmd.args if not a.startswith("-")]
    return not files or files[0] in ("-", "/dev/stdin") or "-s" in cmd.args or cmd.name in ("source", ".")


def _pipeline_rules(parsed: ParsedCommand) -> list[Finding]:
    out: list[Finding] = []
    nested_fetch = any(
        c.name in FETCHERS or (c.name in DECODERS and _decodes(c))
        for s in parsed.substitutions
        for _, c in s.walk()
    )
    downloaded: set[str] = set()
    for pipe in _all_pipelines(parsed):
        names = [c.name for c in pipe.commands]
        for i, cmd in enumerate(pipe.commands):
            upstream = pipe.commands[:i]
            if _is_stdin_interpreter(cmd) and any(u.name in FETCHERS for u in upstream):
                out.append(
                    Finding("download-exec", "pipes downloaded content into an interpreter (curl | sh)")
                )
            elif _is_stdin_interpreter(cmd) and any(u.name in DECODERS and _decodes(u) for u in upstream):
                out.append(Finding("obfuscated-exec", "pipes a decoded payload into an interpreter"))
            if cmd.name in NETWORK and any(
                u.name in ENV_DUMPERS or any(P.is_credential(a) for a in u.args) or u.name == "history"
                for u in upstream
            ):
                out.append(
                    Finding("env-exfil", f"sends the environment or credentials to the network ({names})")
                )
            if cmd.name in FETCHERS:
                downloaded.update(_fetch_outputs(cmd))
            if (
                (cmd.name in INTERPRETERS or cmd.name == "eval")
                and nested_fetch
                and any("__SUBST" in a for a in cmd.args)
            ):
                out.append(Finding("download-exec", "runs the output of a download or decoder as code"))
            files = [a for a in cmd.args if not a.startswith("-")]
            run_target = (
                cmd.name
                if cmd.name.startswith("./")
                else (files[0] if cmd.name in INTERPRETERS and files else "")
            )
            if run_target and any(run_target.lstrip("./") == d.lstrip("./") for d in downloaded):
                out.append(Finding("download-exec", f"downloads {run_target} and runs it"))
    return out


def _decodes(cmd: SimpleCommand) -> bool:
    a = set(cmd.args)
    if cmd.name in ("base64", "base32"):
        return bool({"-d", "--decode", "-D"} & a)
    if cmd.name == "xxd":
        return "-r" in a or "-r" in "".join(cmd.args)
    if cmd.name == "openssl":
        return "-d" in a
    return cmd.name in ("uudecode",)


def _fetch_outputs(cmd: SimpleCommand) -> set[str]:
    out = {t for op, t in cmd.redirects if ">" in op}
    for i, a in enumerate(cmd.args[:-1]):
        if a in ("-o", "--output", "-O", "--output-document"):
            out.add(cmd.args[i + 1])
    if cmd.name == "curl" and (
        "--remote-name" in cmd.args or any(re.match(r"^-[a-zA-Z]*O", a) for a in cmd.args)
    ):
        out.update(u.rsplit("/", 1)[-1] for u in cmd.args if u.startswith("http"))
    if cmd.name == "wget" and not ({"-O", "--output-document"} & set(cmd.args)):
        out.update(u.rsplit("/", 1)[-1] for u in cmd.args if u.startswith("http"))
    return out


def _all_pipelines(parsed: ParsedCommand) -> list[Pipeline]:
    return parsed.pipelines + [p for s in parsed.substitutions for p in _all_pipelines(s)]
