"""What the command rules share: the Finding and verdict types, argument helpers, and the tool-name tables."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grove.lazy_regex import later
from grove.security.commands.shell import SHELLS, SimpleCommand
from grove.security.fast import shortcuts

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
SECRET_VAR = later(
    r"\$\{?#?([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D|PASS|CRED\w*|AUTH|PRIVATE)[A-Z0-9_]*)"
)
# Names that match SECRET_VAR but hold no secret: a crypto token's address or mint, a model's token limit, a
# public key. Renaming a real secret does not help an attacker: assignments are resolved (X=$OPENAI_API_KEY).
_NOT_SECRET = later(
    r"(?:^|_)(?:MAX|MIN|NUM|TOTAL)_(?:\w+_)?TOKENS?$|(?:^|_)TOKENS?_(?:ADDRESS|MINT|SYMBOL|DECIMALS|CONTRACT|AMOUNT|"
    r"PRICE|COUNT|LIMIT|ID|NAME|IN|OUT|CA)$|(?:^|_)PUB(?:LIC)?_?KEY$"
)


def secret_vars(text: str) -> list[str]:
    """The secret-looking variables `text` expands (SECRET_VAR), less the names that hold no secret."""
    return [m.group(1) for m in SECRET_VAR.finditer(text) if not _NOT_SECRET.search(m.group(1))]


DESTRUCTIVE_SQL = later(
    r"\b(?:DROP\s+(?:TABLE|DATABASE|SCHEMA|INDEX|VIEW|USER|ROLE|COLLECTION)\b|TRUNCATE\b|FLUSHALL\b|FLUSHDB\b"
    r"|DELETE\s+FROM\s+[\w.\"`\[\]]+\s*(?:;|$|\"|')"
    r"|(?:DELETE\s+FROM|UPDATE)\s+[^;]*?\bWHERE\s+(?:NOT\s+)?(?:1|TRUE|(\d+)\s*=\s*\1|'(\w*)'\s*=\s*'\2'|(\w+)\s*=\s*\3"
    r"|\S+\s+IS\s+NOT\s+NULL\s+OR\s+\S+\s+IS\s+NULL|1\s*(?:<|>)=?\s*\d+)\s*(?:;|$|\"|'|\bOR\b)|UPDATE\s+[\w.\"`]+\s+SET\s+(?:(?!\bWHERE\b)[^;])*(?:;|$)"
    r"|ALTER\s+TABLE\s+\S+\s+DROP\b|dropDatabase\s*\(|\.drop\s*\(\s*\)|deleteMany\s*\(\s*\{\s*\})",
    re.I | re.M,
)
# Function names are bounded and anchored at a word start: an unbounded `(\S+)` made this quadratic on long words.
FORK_BOMB = later(
    r"(?<![^\s;&|])([^\s(){}|&;]{1,64})\(\)\{\1\|\1&\};?\1|(?<![^\s;&|])([^\s(){}|&;]{1,64})\(\)\{\2&\2\}|fork\s*while\s*fork|while(?:True|1|true):?[^\n]{0,40}os\.fork\(\)"
    r"|for\(;;\)fork\(\)|%0\|%0|\$0&\$0"
)
# Every spelling FORK_BOMB knows holds one of these: a text without them skips the regex (tried at each position).
_FORK_MARKS = ("(){", "fork", "%0|%0", "$0&$0")
_SPACES = later(r"\s+")


def is_fork_bomb(code: str) -> bool:
    """FORK_BOMB in the code with its spaces squeezed out (`:(){ :|:& };:`), or as written."""
    squeezed = _SPACES.sub("", code)  # a mark in `code` is one in `squeezed` too
    if shortcuts.on() and not any(mark in squeezed for mark in _FORK_MARKS):
        return False
    return bool(FORK_BOMB.search(squeezed) or FORK_BOMB.search(code))


# `u+s`, `g=s`, `+s`, and octal with a setuid/setgid digit, however many leading zeros (`4755`, `04755`, `0006755`)
SETUID_MODE = later(r"^(?:[ugoa]*[+=][rwxXt]*s[rwxXst]*|0*[2-7][0-7]{3})$")
WORLD_WRITABLE = later(
    r"^(?:0?[0-7]{1,2}[2367]|0?777|a\+\w*w\w*|o\+\w*w\w*|ugo\+\w*w\w*|\+w|a=rwx\w*|o=rwx)$"
)
CLOUD_CLIS = {"aws", "gcloud", "az", "doctl", "kubectl", "heroku", "flyctl", "fly", "gh", "vercel", "firebase",
              "terraform", "tofu", "pulumi", "helm", "docker", "podman", "npm", "gsutil", "s3cmd", "oc"}  # fmt: skip
CLOUD_DESTROY = later(r"^(?:delete|destroy|terminate\S*|rb|purge|prune|unpublish|apps:destroy|remove|rm|rmi|"
                           r"delete-\S+|deprovision|uninstall|wipe)$")  # fmt: skip
READ_OK = {"ls", "stat", "file", "chmod", "chown", "test", "[", "ssh-add", "ssh", "ssh-keygen", "git", "touch",
           "rm", "mkdir", "du", "realpath", "readlink", "basename", "dirname", "echo", "wc", "diff", "cmp"}  # fmt: skip


EFFECTS = ("delete", "truncate", "overwrite", "network-exec", "exfiltrate", "privilege", "history-rewrite",
           "db-destroy", "persistence", "expose", "system", "unknown", "")  # fmt: skip


@dataclass(frozen=True)
class Finding:
    rule: str  # stable id, the key "always"/"this session" approvals are remembered by
    description: str
    hard: bool = False  # on the hard blocklist: refused even with approvals off
    effect: str = ""  # one of EFFECTS: what the act does, whatever it was spelled like
    unknown: bool = False  # not resolvable statically (computed command, eval, unseen script): see policy


@dataclass
class CommandVerdict:
    command: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def level(self) -> str:
        """What is known: blocked (hard blocklist), dangerous, or safe. Unresolvable parts are in `unknown`."""
        if any(f.hard for f in self.findings):
            return "blocked"
        return "dangerous" if any(not f.unknown for f in self.findings) else "safe"

    @property
    def unknown(self) -> bool:
        """Part of it cannot be resolved statically; the policy decides (ask, or deny when nobody can be
        asked and the sandbox does not isolate)."""
        return any(f.unknown for f in self.findings)

    @property
    def rules(self) -> list[str]:
        return sorted({f.rule for f in self.findings})

    def summary(self) -> str:
        return "; ".join(dict.fromkeys(f.description for f in self.findings)) or "no dangerous pattern"

    @property
    def effects(self) -> list[str]:
        return sorted({f.effect for f in self.findings if f.effect})


def target_args(cmd: SimpleCommand) -> list[str]:
    args = cmd.args
    if "--" not in args:  # the common case, in one pass
        return [a for a in args if not a.startswith("-") or a == "-"]
    out, after = [], False
    for a in args:
        if a == "--":
            after = True
        elif after or not a.startswith("-") or a == "-":
            out.append(a)
    return out


def flag_string(cmd: SimpleCommand) -> str:
    """Single-letter flags merged (`-rf` and `-r -f` both give 'rf'), long ones kept as words."""
    short = "".join(a[1:] for a in cmd.args if a.startswith("-") and not a.startswith("--"))
    return short + " " + " ".join(a for a in cmd.args if a.startswith("--"))
