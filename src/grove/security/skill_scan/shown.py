"""Commands SHOWN in a skill's markdown run only through the terminal tool, whose approval gate classifies each and
asks; code a skill SHIPS runs unapproved. So a curated vendor's installer or a routine cron / service / launchd /
shell-startup step is a note when shown, and stays refused in a script."""

# What keeps a shown step refused: whatever it would run (quoted strings, heredocs, unit Exec lines, plist strings,
# cron lines) holding a download run, decoded code, a reverse shell, exfiltration, LD_PRELOAD, or a file the same
# block downloaded. SSH keys, sudoers, ld.so.preload, system-wide profiles, /etc/hosts and git hooks are never
# routine (hits.routine_persistence), and a download from any host but a listed vendor's stays refused.

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from grove.security.skill_scan.hits import (
    CAUTION_RULES,
    ROUTINE_PERSISTENCE,
    ROUTINE_REMOVAL,
    Hit,
    command_hits,
    line_of,
    shifted,
)
from grove.security.skill_scan.shell_script import script_text, shell_hits

# Official install hosts of known vendors and projects (exact hosts, https only); none serves its users' files
# (packagecloud.io or *.vercel.app would). A GitHub file counts only under a project's own repository path:
# anyone can publish on raw.githubusercontent.com, which is how skills' "prerequisites" ship malware.
_VENDOR_HOSTS = frozenset(
    {
        "bun.sh",
        "astral.sh",
        "sh.rustup.rs",
        "get.docker.com",
        "deno.land",
        "get.pnpm.io",
        "ollama.com",
        "ollama.ai",
        "sdk.cloud.google.com",
        "fluxcd.io",
        "run.linkerd.io",
        "get.helm.sh",
        "install.python-poetry.org",
        "pixi.sh",
        "mise.run",
        "fnm.vercel.app",
        "claude.ai",
        "cli.github.com",
        "tailscale.com",
        "foundry.paradigm.xyz",
        "deb.nodesource.com",
        "rpm.nodesource.com",
        "openclaw.ai",
        "cli.inference.sh",
        "fly.io",
        "railway.app",
        "cursor.com",
        "cli.kiro.dev",
        "sentry.io",
        "pyenv.run",
        "rclone.org",
        "release.anza.xyz",
        "release.solana.com",
        "dl.infisical.com",
        "proton.me",
        "aliyuncli.alicdn.com",
        "download.newrelic.com",
        "dot.net",
        "get.k3s.io",
        "k3d.io",
        "starship.rs",
        "sh.vector.dev",
        "install.determinate.systems",
        "nixos.org",
        "get.sdkman.io",
        "volta.sh",
        "bootstrap.pypa.io",
        "parallel.ai",
        "vapi.ai",
        "install.surrealdb.com",
        "ftp.ncbi.nlm.nih.gov",
    }
)
_VENDOR_GITHUB = re.compile(
    r"^/(?:Homebrew/install|nvm-sh/nvm|helm/helm|pyenv/pyenv-installer|rapid7/metasploit-omnibus|k3d-io/k3d|"
    r"golangci/golangci-lint|near/near-cli-rs|cli/cli|starship/starship|junegunn/fzf|ohmyzsh/ohmyzsh)/"
)
_URL = re.compile(r"[a-zA-Z][\w+.-]*://[^\s'\"`|;&<>()]+")
# curl/wget options that send the request elsewhere or skip the certificate check
_REROUTE = re.compile(
    r"(?:^|\s)(?:--(?:proxy|preproxy|socks\w*|resolve|connect-to|insecure|config|doh-url|location-trusted|"
    r"no-check-certificate|proxy-insecure)\b|-[A-Za-z]*[xkK][A-Za-z]*(?:\s|$|=))|\b\w*_?proxy=",
    re.I,
)


def vendor_url(url: str) -> bool:
    """An https URL on a curated vendor's install host (no userinfo, no port games), or a vendor's own GitHub
    repository on raw.githubusercontent.com / github.com releases."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return False
    if parts.scheme != "https" or "@" in parts.netloc or port not in (None, 443):
        return False
    if host in ("raw.githubusercontent.com", "github.com"):
        return bool(_VENDOR_GITHUB.match(parts.path))
    if host == "aka.ms":  # Microsoft's short links: only the Azure CLI installer
        return parts.path.lower() == "/installazureclilinux"
    # exact hosts: a vendor's subdomains may serve its users' files
    return host.removeprefix("www.") in _VENDOR_HOSTS


_FETCHER = re.compile(r"(?<![\w.-])(?:curl|wget|aria2c|xh)(?=\s)")
_PLACEHOLDER = re.compile(r"\.\.\.|…|<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|URL|url")


def vendor_installer(line: str) -> bool:
    """A line whose every URL is a vendor's, fetched without a proxy, resolve override or certificate bypass."""
    urls = _URL.findall(line)
    return bool(urls) and all(vendor_url(u) for u in urls) and not _REROUTE.search(line)


def names_a_pattern(line: str) -> bool:
    """`curl | bash`, `wget -O- <url> | sh`: every fetcher on the line given no source at all (only options and
    placeholders; no URL, host, variable or substitution) names the pattern; it downloads nothing."""
    parts = _FETCHER.split(line)
    if len(parts) < 2:
        return False
    for rest in parts[1:]:
        words = re.split(r"\\?\|", rest, maxsplit=1)[0]
        if re.search(r"[$`]", words):
            return False
        if not all(w.startswith("-") or _PLACEHOLDER.fullmatch(w) for w in words.split()):
            return False
    return True


# A cloud delete of more than one named resource: everything, a whole namespace, group, project or cluster,
# whatever a pipe feeds it, a prune, a teardown. Anywhere in the block: one finding stands for all its deletes.
_MASS_DELETE = re.compile(
    r"(?:^|\s)(?:--all\b|-A\b|--all-namespaces\b|--recursive\b|-r\b|--force\b|--selector\b|-l\s)|"
    r"\b(?:prune|destroy|xargs|purge|wipe)\b|\*|"
    r"\b(?:delete|rm|remove)\s+(?:ns|namespaces?|projects?|groups?|resource-group|clusters?|stacks?|"
    r"databases?|instances?|volumes?|buckets?|deployments?)\b|\b(?:projects|group)\s+delete\b|\brb\b|"
    # audit and detection resources: deleting one hides tracks (`aws cloudtrail delete-trail`)
    r"\b(?:cloudtrail|delete-trail|guardduty|delete-detector|flow-logs?|delete-log-group|securityhub|audit\w*|"
    r"sentinel|defender|config-rules?|logging)\b"
)


def _downloads_run(block: str) -> bool:
    return any(h.level == "dangerous" and h.why.startswith("runs code downloaded") for h in shell_hits(block))


def _segments(line: str) -> list[str]:
    """A line cut at `;`, `&&`, `||` and `&` outside quotes and substitutions (pipes stay: `curl | sh` is one)."""
    out, start, depth, quote, i = [], 0, 0, "", 0
    while i < len(line):
        ch = line[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and (
            ch == ";"
            or (ch == "&" and line[i - 1 : i] not in (">", "<") and line[i + 1 : i + 2] != ">")
            or line[i : i + 2] == "||"
        ):
            out.append(line[start:i])
            i += 2 if line[i : i + 2] in ("&&", "||") else 1
            start = i
            continue
        i += 1
    return [*out, line[start:]]


def _exempt(segment: str) -> str:
    """'vendor' for a vendor's installer fetched from its own host, 'pattern' for a sourceless pattern name."""
    if not _FETCHER.search(segment):
        return ""
    if vendor_installer(segment) and all("://" in part for part in _FETCHER.split(segment)[1:]):
        return "vendor"
    return "pattern" if names_a_pattern(segment) else ""


# What a persistence step would run: quoted strings (nested too), heredoc bodies, systemd Exec lines, plist
# strings, and cron lines without their schedule.
_QUOTED = re.compile(r"'([^']*)'|\"((?:[^\"\\]|\\.)*)\"")
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)^\s*\1\s*$", re.M | re.S)
_EXEC_LINE = re.compile(r"^\s*Exec\w*=\s*[-@:+!]*(.+)$", re.M)
_PLIST_STRING = re.compile(r"<string>([^<]*)</string>")
_CRON = re.compile(r"^\s*(?:@\w+|(?:[\d*/,-]+\s+){5})(.+)$", re.M)
_ALWAYS_BAD = re.compile(r"\bLD_(?:PRELOAD|AUDIT|LIBRARY_PATH)\b|\bDYLD_INSERT_LIBRARIES\b")
_DOWNLOADED = re.compile(r"(?:\s-o\s*|\s--output[ =]|\s-O\s*|\s--output-document[ =])['\"]?([^\s'\";&|]+)")


def _payloads(block: str, depth: int = 0) -> list[str]:
    found: list[str] = []
    for m in _QUOTED.finditer(block):
        inner = m.group(1) if m.group(1) is not None else m.group(2).replace('\\"', '"')
        if inner.strip():
            found.append(inner)
            if depth < 3:
                found += _payloads(inner, depth + 1)
    for m in _HEREDOC.finditer(block):
        found.append(m.group(2))
        found += _payloads(m.group(2), depth + 1) if depth < 3 else []
    found += [m.group(1) for m in _EXEC_LINE.finditer(block)]
    strings = _PLIST_STRING.findall(block)
    found += strings + ([" ".join(strings)] if strings else [])
    found += [m.group(1) for m in _CRON.finditer("\n".join([*found, block]))]
    return found


_SCHEDULED = re.compile(
    r"\.(?:plist|service|timer|socket|path|desktop|cron|crontab)$|(?:^|/)(?:crontab|cron)(?:\.\w+)?$", re.I
)


def scheduled_file(path: str | Path | None) -> bool:
    """A launchd plist, systemd unit, autostart entry or crontab shipped with a skill (read as plain text)."""
    return path is not None and _SCHEDULED.search(str(path)) is not None


def scheduled_hits(text: str) -> list[Hit]:
    """What a shipped plist, unit or crontab would run, read as shell: the step that installs it is only a note
    when shown in markdown, so its payload is scanned here."""
    out: list[Hit] = []
    for pattern in (_EXEC_LINE, _CRON):
        for m in pattern.finditer(text):
            out += shifted(shell_hits(m.group(1)), line_of(text, m.start()))
    strings = list(_PLIST_STRING.finditer(text))
    if strings:
        joined = " ".join(_quote(m.group(1)) for m in strings)
        out += shifted(shell_hits(joined), line_of(text, strings[0].start()))
        for m in strings:
            out += shifted(shell_hits(m.group(1)), line_of(text, m.start()))
    return out


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\"'\"'") + "'"


def payload_is_clean(block: str) -> bool:
    """Nothing a persistence step in `block` would run is itself dangerous."""
    if _ALWAYS_BAD.search(block):
        return False
    downloaded = {p.rsplit("/", 1)[-1] for p in _DOWNLOADED.findall(block) if p.rsplit("/", 1)[-1]}
    for text in _payloads(block):
        if any(name in text for name in downloaded):
            return False
        for h in command_hits(text, 1):
            if h.level == "dangerous" and h.why != ROUTINE_PERSISTENCE:
                return False
    return True


def _exempt_kinds(block: str, rest: list[str]) -> dict[int, set[str]]:
    """Per logical line of `block`, the kinds of exempt commands on it; `rest` gets each line without them."""
    kinds: dict[int, set[str]] = {}
    for i, ln in enumerate(script_text(block).splitlines(), 1):
        parts = [(p, _exempt(p)) for p in _segments(ln)]
        kinds[i] = {kind for _, kind in parts} - {""}
        rest.append(" ; ".join(p for p, kind in parts if not kind) if kinds[i] else ln)
    return kinds


def shown_policy(hits: list[Hit], block: str) -> list[Hit]:
    """The hits of one shown block (numbered by its logical lines, as shell_script numbers them), with the
    shown-command policy applied. A download-run finding of a block is one finding whatever line it came from,
    so the exempt commands (vendor installers, sourceless pattern names) are cut out and the rest is scanned
    again: one vendor command must not vouch for another command's download."""
    if not any(h.level in ("dangerous", "caution") for h in hits):
        return hits  # most blocks: nothing the policy could lower, so no need to read the block's lines
    clean: bool | None = None
    rest_runs: bool | None = None
    kinds: dict[int, set[str]] | None = None
    rest: list[str] = []
    out: list[Hit] = []
    for h in hits:
        downloads = h.level == "dangerous" and h.why.startswith("runs code downloaded")
        if downloads and kinds is None:
            kinds = _exempt_kinds(block, rest)
        if downloads and kinds and kinds.get(h.line):
            rest_runs = _downloads_run("\n".join(rest)) if rest_runs is None else rest_runs
            if not rest_runs:
                vendor = "vendor" in kinds[h.line]
                why = "runs a vendor's install script" if vendor else "names the curl | sh pattern"
                h = Hit("note", f"{why} (shown; approval asks when it runs)", h.line, h.excerpt)
        elif (
            h.level == "caution"
            and h.why == CAUTION_RULES["cloud-destroy"]
            and not _MASS_DELETE.search(block)
        ):
            h = Hit(
                "note", f"{h.why}, one named resource (shown; approval asks when it runs)", h.line, h.excerpt
            )
        elif h.level == "dangerous" and h.why == ROUTINE_REMOVAL:
            h = Hit("note", f"{h.why} (shown; approval asks when it runs)", h.line, h.excerpt)
        elif h.level in ("dangerous", "caution") and h.why == ROUTINE_PERSISTENCE:
            clean = payload_is_clean(block) if clean is None else clean
            if clean:
                h = Hit("note", f"{h.why} (shown; approval asks when it runs)", h.line, h.excerpt)
        out.append(h)
    return out


__all__ = [
    "names_a_pattern",
    "payload_is_clean",
    "scheduled_file",
    "scheduled_hits",
    "shown_policy",
    "vendor_installer",
    "vendor_url",
]
