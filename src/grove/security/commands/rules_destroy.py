"""Command rules for acts that destroy: deletes, disks, system writes, persistence, permissions, git history,
databases, cloud resources, the machine itself."""

from __future__ import annotations

import os
import re

from grove.lazy_regex import later
from grove.security.commands import paths as P
from grove.security.commands.base import (
    CLOUD_CLIS,
    CLOUD_DESTROY,
    DB_CLIENTS,
    DESTRUCTIVE_SQL,
    SETUID_MODE,
    WORLD_WRITABLE,
    Finding,
    flag_string,
    target_args,
)
from grove.security.commands.shell import ParsedCommand, Pipeline, SimpleCommand


def _delete_rule(target: str, default: str = "rm-recursive") -> str:
    """Deletes in shared temp dirs get their own id: they need approval like any delete of what this command
    did not create, but are a lesser class than deleting a home or project (skill scans weigh them so)."""
    return "rm-temp" if P.is_tmp(target) or P.norm(target) in ("/dev/shm", "/dev/shm/*") else default


def _rm(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    if cmd.name not in ("rm", "rmdir", "shred", "srm", "unlink", "wipe"):
        return []
    flags = flag_string(cmd)
    recursive = cmd.name in ("rm", "srm") and (
        bool(re.search(r"[rR]", flags.split(" ")[0])) or "--recursive" in flags
    )
    out: list[Finding] = []
    if "--no-preserve-root" in flags:
        out.append(Finding("rm-root", "delete with --no-preserve-root", hard=True))
    for t in target_args(cmd):
        if recursive and (P.is_root(t) or P.is_home(t) or P.is_system_top(t)):
            out.append(Finding("rm-root", f"recursive delete of {t}", hard=True))
        elif P.is_disk(t):
            out.append(Finding("disk-wipe", f"wipes the disk device {t}", hard=True))
        elif P.is_credential(t) or P.is_startup(t):
            out.append(Finding("rm-important", f"deletes {t}"))
        elif recursive and (P.outside(t, ws) or P.is_unguarded_var(t, parsed.temp_vars()) or P.escapes_up(t)):
            out.append(
                Finding(_delete_rule(t), f"recursive delete of {t} (outside the workspace or unbounded)")
            )
        elif P.is_system(t) and not P.is_tmp(t) and not (ws and P.norm(t).startswith(ws)):
            out.append(Finding("rm-important", f"deletes the system file {t}"))
        elif P.outside(t, ws) and not P.is_root(t):
            out.append(
                Finding(_delete_rule(t, "rm-outside"), f"deletes {t}, outside the workspace", effect="delete")
            )
        elif recursive and re.fullmatch(r"(?:\./)?\.git/?", t):
            out.append(
                Finding("git-discard", "deletes the repository's history (.git)", effect="history-rewrite")
            )
    if recursive and "xargs" in cmd.wrappers:
        for other in pipe.commands:
            if other.name == "find" and any(P.outside(a, ws) for a in target_args(other)[:1]):
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
        and os.path.basename(cmd.args[i + 1]) in ("rm", "shred", "unlink", "truncate", "srm", "wipe", "rmdir")
        for i, a in enumerate(cmd.args)
    )
    if deleting and roots and (P.outside(roots[0], ws) or P.is_unguarded_var(roots[0])):
        return [
            Finding(_delete_rule(roots[0]), f"find deletes files under {roots[0]}", hard=P.is_root(roots[0]))
        ]
    tests = {"-name", "-iname", "-path", "-ipath", "-regex", "-type", "-mtime", "-mmin", "-newer", "-size",
             "-empty", "-user", "-perm", "-wholename", "-iregex", "-links", "-inum", "-samefile"}  # fmt: skip
    if (
        deleting
        and not tests & set(cmd.args)
        and P.norm(roots[0] if roots else ".") in (".", "./", ws or ".")
    ):
        return [Finding("rm-recursive", "find deletes everything in the workspace", effect="delete")]
    return []


def _disk(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    name = cmd.name
    targets = target_args(cmd)
    formats = name.startswith(("mkfs", "mke2fs", "mkswap", "wipefs", "blkdiscard", "sgdisk"))
    partitions = name in ("fdisk", "sfdisk", "gdisk", "parted", "cfdisk")
    disk_target = (formats or partitions) and any(P.is_disk(t) for t in targets)
    if disk_target and formats:
        out.append(Finding("disk-format", f"{name} on a disk device", hard=True))
    if disk_target and partitions and not {"-l", "--list", "print", "-s"} & set(cmd.args):  # not a listing
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


def _writetargets(cmd: SimpleCommand) -> list[str]:
    """Files this command writes: redirections, tee, cp/mv/install/ln destinations, sed -i, curl -o, wget -O."""
    out = [t for op, t in cmd.redirects if ">" in op]
    targets = target_args(cmd)
    if cmd.name == "tee":
        out += targets
    elif cmd.name in ("cp", "mv", "install", "ln", "rsync") and len(targets) >= 2:
        out.append(targets[-1])
    elif cmd.name in ("sed", "perl") and any(a.startswith("-i") or a == "--in-place" for a in cmd.args):
        out += targets[1:] if cmd.name == "sed" else targets[-1:]
    elif cmd.name in ("truncate", "touch", "chattr") and targets:
        out += targets if cmd.name != "touch" else []
    for i, a in enumerate(cmd.args[:-1] if cmd.name in ("curl", "wget") else ()):
        if (cmd.name == "curl" and a in ("-o", "--output")) or (
            cmd.name == "wget" and a in ("-O", "--output-document")
        ):
            out.append(cmd.args[i + 1])
    return out


def _writes(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    for target in _writetargets(cmd):
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
        for t in target_args(cmd)[:-1]:
            if P.is_root(t) or P.is_home(t) or P.is_system_top(t):
                out.append(Finding("rm-root", f"moves away {t}", hard=P.is_root(t)))
        if target_args(cmd)[-1:] == ["/dev/null"]:
            out.append(Finding("rm-important", "moves files into /dev/null (deletes them)"))
    return out


_PROTECTION = later(
    r"^(?:firewalld|ufw|iptables|ip6tables|nftables|apparmor|auditd|selinux\w*|fail2ban|sshguard|clamav\S*|"
    r"crowdsec\S*|falco\S*|osqueryd|wazuh\S*|ossec\S*|aide\S*|unattended-upgrades|systemd-journald|rsyslog|"
    r"syslog\S*|apt-daily\S*)(?:\.service|\.socket|\.timer)?$"
)


def _fed(cmd: SimpleCommand, pipe: Pipeline) -> bool:
    return pipe.commands.index(cmd) > 0 or any("<" in op for op, _ in cmd.redirects) or "-f" in cmd.args


def _persistence(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    name, args = cmd.name, cmd.args
    if name == "crontab" and not ({"-l", "--list"} & set(args)):
        return [Finding("persistence", "installs or removes a crontab")]
    if name == "systemctl" and {"enable", "isolate", "link", "preset"} & set(args):
        return [Finding("persistence", "changes which services run (systemctl)")]
    if name == "systemctl" and {"mask", "disable", "stop", "kill"} & set(args):
        # stopping a service is no persistence; stopping a protection is turning it off
        if any(_PROTECTION.match(a) for a in args):
            return [Finding("security-off", "systemctl stops or disables a protection")]
        return [Finding("service-stop", "stops or disables a service (systemctl)")]
    if name in ("launchctl",) and {"load", "bootstrap", "enable", "submit"} & set(args):
        return [Finding("persistence", "installs a launchd job")]
    if name in ("update-rc.d", "chkconfig", "rc-update") or (name in ("at", "batch") and _fed(cmd, pipe)):
        # at/batch schedule only what they are given (a pipe, a redirect, -f FILE): a bare `batch)` is a case label
        return [Finding("persistence", f"schedules or enables something to run later ({name})")]
    hooks = ("core.hooksPath", "core.sshCommand", "core.pager", "core.fsmonitor", "core.editor")
    if name == "git" and ("config" in args or "-c" in args) and any(a.split("=")[0] in hooks for a in args):
        return [Finding("persistence", "points git at commands it will run later")]
    return []


def _permissions(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    if cmd.name not in ("chmod", "chown", "chgrp", "setfacl", "chattr"):
        return []
    flags = flag_string(cmd)
    recursive = "R" in flags.split(" ")[0] or "--recursive" in flags
    targets = target_args(cmd)
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
        and not any(re.match(r"^-[a-zA-Z]*n", a) for a in rest)  # `-fdn` is a dry run too
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


_MANAGE_WIPE = later(r"manage\.py\s+(flush|reset_db|sqlflush)\b")
_MIGRATE_WIPE = later(r"\b(migrate:fresh|migrate:reset|db:wipe|migrate reset|db push --force-reset)\b")


def _sql(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    name, args = cmd.name, cmd.args
    joined = " ".join(args)
    if name in ("dropdb", "dropuser") or (name == "mysqladmin" and "drop" in args):
        return [Finding("sql-destroy", f"{name} deletes a database")]
    if name in ("rails", "rake", "bin/rails") and re.search(r"\bdb:(drop|reset|purge|schema:load)\b", joined):
        return [Finding("sql-destroy", "drops/resets the database")]
    if _MANAGE_WIPE.search(" ".join(cmd.argv)) or (
        ("migrate" in joined or "db" in joined) and _MIGRATE_WIPE.search(joined)  # each spelling has one
    ):
        return [Finding("sql-destroy", "wipes the database")]
    if name in DB_CLIENTS:
        texts = [joined, *args, *parsed.all_heredocs()]
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
    if name in ("docker", "podman") and words[:1] in (["run"], ["create"]):
        for i, a in enumerate(args):
            mount = args[i + 1] if a in ("-v", "--volume", "--mount") and i + 1 < len(args) else ""
            host = mount.split(":")[0] if ":" in mount else ""
            host = re.sub(r"^(?:type=bind,)?(?:src|source)=", "", host)
            if host and (P.is_root(host) or P.is_home(host) or P.is_system_top(host) or P.is_credential_dir(host)
                         or host.endswith("docker.sock")):  # fmt: skip
                return [
                    Finding("container-escape", f"a container gets the host's {host}", effect="privilege")
                ]
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


_EMPTY_WRITERS = (":", "true", "false", "")
_IN_PLACE_FLAG = later(r"-[a-hj-zA-Z]*i\S*")


def _archive_arg(cmd: SimpleCommand) -> str | None:
    for i, a in enumerate(cmd.args[:-1]):
        if a in ("-f", "--file") or (re.fullmatch(r"-?[a-zA-Z]*f", a) and not a.startswith("--")):
            return cmd.args[i + 1]
    return None


def _wipe(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    """Truncations and overwrites by other spellings: `truncate`, `: > f`, `cp /dev/null f`, `dd of=f`, and
    commands that delete as a side effect (`tar --remove-files`, `rsync --delete`, `zip -m`)."""
    out: list[Finding] = []
    name, targets = cmd.name, target_args(cmd)

    def outside(t: str) -> bool:
        return P.outside(t, ws) and t not in P.HARMLESS_DEVICES and not P.is_disk(t)

    if name == "truncate":
        values = {cmd.args[i + 1] for i, a in enumerate(cmd.args[:-1]) if a in ("-s", "-r", "--reference")}
        for t in targets:
            if t not in values and outside(t):
                out.append(Finding("truncate", f"truncates {t}, outside the workspace", effect="truncate"))
    empty = (
        name in _EMPTY_WRITERS
        or (name == "cat" and targets == ["/dev/null"])
        or (name in ("echo", "printf") and all(a in ("-n", "", "-e") for a in cmd.args))
    )
    for op, t in cmd.redirects:
        if empty and op in (">", ">|", "&>") and outside(t):
            out.append(Finding("truncate", f"empties {t}, outside the workspace", effect="truncate"))
    in_place = name in ("sed", "perl") and any(
        a.startswith("-i") or a == "--in-place" or _IN_PLACE_FLAG.fullmatch(a) for a in cmd.args
    )
    if in_place:
        files = targets[1:] if name == "sed" else [t for t in targets if not t.startswith("s/")][-1:]
        for t in files:
            if outside(t) and not P.is_startup(t) and not P.is_system(t):
                out.append(
                    Finding("overwrite", f"{name} -i rewrites {t}, outside the workspace", effect="overwrite")
                )
    forced = name == "ln" and ("f" in flag_string(cmd).split(" ")[0] or "--force" in cmd.args)
    if forced and len(targets) >= 2 and outside(targets[-1]):
        out.append(Finding("overwrite", f"replaces {targets[-1]} by a link", effect="overwrite"))
    if name == "cp" and len(targets) >= 2 and targets[0] == "/dev/null" and outside(targets[-1]):
        out.append(
            Finding("truncate", f"empties {targets[-1]} (copies /dev/null over it)", effect="truncate")
        )
    if name == "dd":
        for a in cmd.args:
            if a.startswith("of=") and outside(a[3:]) and not P.is_system(a[3:]) and not P.is_startup(a[3:]):
                out.append(
                    Finding("overwrite", f"dd overwrites {a[3:]}, outside the workspace", effect="overwrite")
                )
    if name in ("tar", "bsdtar", "gtar") and "--remove-files" in cmd.args:
        archive = _archive_arg(cmd)
        for t in targets:
            if t != archive and not re.fullmatch(r"[a-zA-Z]+", t) and outside(t):
                out.append(Finding("rm-outside", f"tar --remove-files deletes {t}", effect="delete"))
    if name == "rsync" and any(a.startswith("--delete") for a in cmd.args) and len(targets) >= 2:
        dest = targets[-1]
        if ":" not in dest and (outside(dest) or P.is_root(dest)):
            out.append(Finding("rm-outside", f"rsync --delete removes files in {dest}", effect="delete"))
    if (name == "zip" and "-m" in cmd.args) or (name == "7z" and "-sdel" in cmd.args):
        for t in targets[1:]:
            if outside(t):
                out.append(
                    Finding("rm-outside", f"{name} moves {t} into an archive (deletes it)", effect="delete")
                )
    return out


def _privilege(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    name, args = cmd.name, cmd.args
    if name == "install":
        for i, a in enumerate(args[:-1]):
            if a in ("-m", "--mode") and SETUID_MODE.match(args[i + 1]):
                return [
                    Finding(
                        "setuid", f"installs a setuid/setgid file (mode {args[i + 1]})", effect="privilege"
                    )
                ]
    if name == "setcap" and re.search(
        r"cap_(?:setuid|setgid|sys_admin|dac_\w+|sys_ptrace|chown|fowner)", " ".join(args)
    ):
        return [Finding("setuid", "grants a file root capabilities (setcap)", effect="privilege")]
    if (
        name in ("usermod", "gpasswd", "adduser", "addgroup")
        and re.search(r"\b(?:sudo|wheel|root|admin|docker|disk|shadow)\b", " ".join(args))
        and len(args) >= 2
    ):
        return [Finding("privilege", f"{name} adds a user to a privileged group", effect="privilege")]
    if name in ("visudo", "passwd", "chpasswd", "useradd", "userdel", "chsh") and not {
        "-c",
        "--check",
        "-S",
    } & set(args):
        return [Finding("privilege", f"{name} changes users or sudo rights", effect="privilege")]
    return []


RULES = (
    _wipe,
    _privilege,
    _rm,
    _find,
    _disk,
    _writes,
    _persistence,
    _permissions,
    _git,
    _sql,
    _cloud,
    _system,
)
