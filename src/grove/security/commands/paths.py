"""What kind of path a command argument names: root, home, system tree, credential or shell-startup file."""

from __future__ import annotations

import posixpath

from grove.lazy_regex import later

SYSTEM_TOPS = (
    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/boot", "/var", "/opt", "/srv", "/sys", "/proc",
    "/dev", "/root", "/home", "/Users", "/System", "/Library", "/Applications", "/snap", "/mnt", "/media",
)  # fmt: skip
TMP_PREFIXES = ("/tmp/", "/var/tmp/", "$TMPDIR/", "${TMPDIR}/", "/dev/shm/")
DISK_DEVICE = later(
    r"^/dev/(sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+n\d+(p\d+)?|mmcblk\d+(p\d+)?|disk\d+(s\d+)?"
    r"|rdisk\d+|md\d+|dm-\d+|mapper/\S+|loop\d+|sr\d+|root|disk/\S+)$"
)
HARMLESS_DEVICES = {"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/random",
                    "/dev/urandom", "/dev/fd/1", "/dev/fd/2"}  # fmt: skip
_HOME = r"(?:~|\$HOME|\$\{HOME\}|/root|/home/[^/\s]+|/Users/[^/\s]+)"
CREDENTIAL = later(
    r"(?:^|[/@=\s:'\"])(?:"
    r"\.ssh/(?:id_[a-z0-9_]+|identity|[a-z0-9_.-]*_key)(?![.\w]*\.pub)\b"
    r"|/etc/ssh/ssh_host_\w+_key(?!\.pub)\b|/etc/shadow\b|/etc/gshadow\b|/etc/master\.passwd\b"
    r"|\.aws/credentials|\.config/gcloud/(?:credentials|application_default_credentials|legacy_credentials|"
    r"access_tokens)|\.azure/(?:accessTokens|msal_token_cache)|\.kube/config\b|\.docker/config\.json"
    r"|\.netrc\b|\.pgpass\b|\.my\.cnf\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.gnupg/|\.vault-token\b"
    r"|\.terraform\.d/credentials|\.config/gh/hosts\.yml|\.password-store/|\.local/share/keyrings/"
    r"|Library/Keychains/|\.mozilla/firefox/\S*(?:logins\.json|key4\.db)|Login Data\b|\.grove/\.env"
    r"|\.env(?:\.(?:local|production|prod|development|dev|staging|test|secret))?(?=$|[\s'\"])"
    r"|[\w.-]*(?:private|priv)[\w.-]*\.(?:pem|key)\b|[\w.-]+\.(?:p12|pfx|jks|keystore)\b"
    r"|/proc/(?:\d+|self|\*)/environ\b)"
)
STARTUP = later(
    r"(?:^|/)(?:\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile|zlogin|kshrc|cshrc"
    r"|tcshrc|xprofile|xinitrc|xsessionrc)|\.config/fish/config\.fish|\.config/autostart/\S*"
    r"|\.config/systemd/user/\S*|\.ssh/(?:authorized_keys2?|config|rc)|Library/LaunchAgents/\S*)$"
    r"|^/etc/(?:profile|bash\.bashrc|zsh/\S*|profile\.d/\S*|environment|rc\.local|crontab|cron\.\w+/\S*|cron\.d"
    r"|ld\.so\.preload|sudoers(?:\.d/\S*)?|systemd/system/\S*|init\.d/\S*|security/\S*|pam\.d/\S*|passwd|shadow"
    r"|group|hosts|resolv\.conf|ssh/sshd_config)$|^/var/spool/cron/\S*|^/Library/Launch(?:Agents|Daemons)/\S*"
)

_SLASHES = later(r"/+\*?")
_HOME_ITSELF = later(rf"{_HOME}(?:/\*|/\.\*|/\.)?|/home|/Users|/home/\*|/Users/\*")
_IN_HOME = later(rf"{_HOME}(?:/|$)")
_VAR_NAME = later(r"^\$\{?(\w+)")
_DOTENV = later(r"(?:^|/)\.env(?:\.\w+)?$")


def norm(path: str) -> str:
    """Spell home one way (~) and drop quotes and trailing slashes, so the checks below stay simple."""
    p = path.strip("'\"")
    if p.startswith("$HOME"):
        p = "~" + p[5:]
    elif p.startswith("${HOME}"):
        p = "~" + p[7:]
    while len(p) > 1 and p.endswith("/") and not p.endswith("//"):
        p = p[:-1]
    return p


def is_root(path: str) -> bool:
    p = norm(path)
    return p in ("/", "/*", "/.", "/..", "//", "/.*") or _SLASHES.fullmatch(p) is not None


def is_home(path: str) -> bool:
    p = norm(path)
    return _HOME_ITSELF.fullmatch(p) is not None


def is_system_top(path: str) -> bool:
    p = norm(path).rstrip("*").rstrip("/") or "/"
    return p in SYSTEM_TOPS


_SYSTEM = tuple(top for top in SYSTEM_TOPS if top not in ("/home", "/Users", "/root"))
_SYSTEM_DIRS = tuple(top + "/" for top in _SYSTEM)


def is_system(path: str) -> bool:
    p = norm(path)
    return p in _SYSTEM or p.startswith(_SYSTEM_DIRS)


def in_home(path: str) -> bool:
    return _IN_HOME.match(norm(path)) is not None


def is_tmp(path: str) -> bool:
    p = norm(path)
    return p.startswith(TMP_PREFIXES) or p in ("/tmp", "/var/tmp")


def is_unguarded_var(path: str, temp_vars: frozenset[str] = frozenset()) -> bool:
    """`$DIR/...`: when DIR is empty this becomes `/...`. `${DIR:?}` fails instead, and a variable set from
    `mktemp` in the same command holds a fresh temp dir, so both are fine."""
    p = norm(path)
    name = _VAR_NAME.match(p)
    if name and name.group(1) in temp_vars:
        return False
    return p.startswith("$") and not is_tmp(p) and ":?" not in p.split("/")[0]


def is_dotenv(path: str) -> bool:
    return _DOTENV.search(norm(path)) is not None


def escapes_up(path: str) -> bool:
    p = norm(path)
    return p in ("..", "../*", "../..") or p.startswith("../..") or p == "." or p == "./*" or p == "*"


def outside(path: str, workspace: str | None) -> bool:
    """An absolute, home or $TMPDIR path that is not in the workspace. Temp dirs count as outside: what is
    there belongs to others too (only a dir made by `mktemp` in the same command is the command's own)."""
    p = norm(path)
    if p.startswith("/") and "/.." in p:
        p = posixpath.normpath(p)
    if workspace and (p == workspace or p.startswith(workspace.rstrip("/") + "/")):
        return False
    if "__MKTEMP__" in p:
        return False
    return p.startswith(("/", "~", "$TMPDIR", "${TMPDIR}")) and p not in HARMLESS_DEVICES


def is_credential(text: str) -> bool:
    if "." not in text and "/" not in text and "Login Data" not in text:
        return False  # every CREDENTIAL spelling holds one of these (most arguments hold none)
    return CREDENTIAL.search(text.replace("$HOME", "~").replace("${HOME}", "~")) is not None


_CREDENTIAL_DIR = later(
    rf"^{_HOME}/\.(?:ssh|aws|gnupg|kube|docker|azure|password-store|config/gcloud|config/gh)/?$"
)


def is_credential_dir(path: str) -> bool:
    """A directory that holds keys or tokens as a whole (`~/.ssh`, `~/.aws`, ...)."""
    return _CREDENTIAL_DIR.match(norm(path)) is not None


def is_startup(path: str) -> bool:
    return STARTUP.search(norm(path)) is not None


def is_disk(path: str) -> bool:
    return DISK_DEVICE.match(norm(path)) is not None
