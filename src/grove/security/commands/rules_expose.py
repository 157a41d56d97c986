"""Command rules for acts that expose: credential files, secrets sent to the network, reverse shells, and
pipelines that run downloaded or decoded code."""

from __future__ import annotations

import re
import shlex
from urllib.parse import urlsplit

from grove.lazy_regex import later
from grove.security.commands import paths as P
from grove.security.commands.base import (
    DECODERS,
    ENV_DUMPERS,
    FETCHERS,
    INTERPRETERS,
    NETWORK,
    READ_OK,
    SECRET_VAR,
    Finding,
    secret_vars,
    target_args,
)
from grove.security.commands.shell import ParsedCommand, Pipeline, SimpleCommand, shell_script_arg


def _credentials(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    name = cmd.name
    if name in READ_OK or name in ("rm", "shred"):
        return []
    sources = list(cmd.args) + [t for op, t in cmd.redirects if "<" in op]
    if name in ("cp", "mv", "install", "ln") and len(target_args(cmd)) >= 2:
        sources.remove(target_args(cmd)[-1])  # the destination is written, not read
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


_LOOPBACK = later(r"^/dev/(?:tcp|udp)/(?:127\.0\.0\.1|localhost|::1)/[\w${}]+$")


def _port_probe(cmd: SimpleCommand, pipe: Pipeline, sockets: list[tuple[str, str]]) -> bool:
    """A port check sends nothing and runs nothing: `echo > /dev/tcp/host/443`, `cat < /dev/tcp/host/13001`, or
    anything echoed to a local port."""
    probe = (
        cmd.name in ("echo", ":", "true", "") and not cmd.args and all(">" in op for op, _ in sockets)
    ) or (
        # only when what it reads goes nowhere: `cat < /dev/tcp/host/port | bash` runs it
        cmd.name == "cat"
        and not cmd.args
        and all(op == "<" for op, _ in sockets)
        and pipe.commands[-1] is cmd
    )
    return probe or (
        cmd.name in ("echo", "printf", ":", "true") and all(_LOOPBACK.match(t) for _, t in sockets)
    )


def _network(cmd: SimpleCommand, pipe: Pipeline, parsed: ParsedCommand, ws: str | None) -> list[Finding]:
    out: list[Finding] = []
    sockets = [(op, t) for op, t in cmd.redirects if t.startswith(("/dev/tcp/", "/dev/udp/"))]
    script = shell_script_arg(cmd)  # `bash -c '...'`: its script is parsed and classified on its own
    words = [a for a in cmd.args if a != script]
    if (sockets and not _port_probe(cmd, pipe, sockets)) or any(
        "/dev/tcp/" in a or "/dev/udp/" in a for a in words
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
    if not talks_to_network(cmd):
        return out
    args = _option_words(cmd.args)
    for i, a in enumerate(args):
        prev = args[i - 1] if i else ""
        if prev in ("-i", "-F") and cmd.name in ("ssh", "scp", "sftp"):
            continue  # an identity or config file: a path read here, not a value sent
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
        if secret_vars(a) and not _to_its_own_api(cmd, a):
            out.append(Finding("env-exfil", f"sends the secret variable in {a!r} to the network"))
            break
    if cmd.stdin_text and secret_vars(cmd.stdin_text) and not out:
        # `nc host 80 <<< "$KEY"`, `curl -d @- URL <<EOF ... $KEY ... EOF`: the same as passing it as data
        out.append(Finding("env-exfil", "sends a secret variable to the network on its standard input"))
    if any("__SUBST" in a for a in args):
        for sub in parsed.substitutions:
            if any(c.name in ENV_DUMPERS or any(P.is_credential(x) for x in c.args) for _, c in sub.walk()):
                out.append(Finding("env-exfil", "sends the environment or a credential file to the network"))
                break
    return out


def talks_to_network(cmd: SimpleCommand) -> bool:
    """A network client; openssl only when it connects (`openssl dgst -hmac "$SECRET"` signs locally)."""
    if cmd.name == "openssl":
        return bool({"s_client", "s_server", "s_time", "ocsp"} & set(cmd.args)) or "-connect" in cmd.args
    return cmd.name in NETWORK


def _option_words(args: list[str]) -> list[str]:
    """Arguments with an option list kept as one word split into its words: the parser keeps a bash array
    (`opts=(-s -H "apikey: $KEY")`, then `curl "${opts[@]}"`) as one value, which would hide a header's name;
    a `${KEY:+-H ...}` alternative gives its option and value."""
    out: list[str] = []
    alternative = False
    for a in args:
        m = re.fullmatch(r"\$\{\w+:?\+(-.*)", a)
        if m:  # `${KEY:+-H "Authorization: Bearer $KEY"}`: the option, given only when KEY is set
            a, alternative = m.group(1), True
        elif alternative and a.endswith("}"):
            a, alternative = a[:-1], False
        if a.startswith("-") and re.search(r"\s", a):
            try:
                out += shlex.split(a)
            except ValueError:
                out += a.split()
        else:
            out.append(a)
    return out


# curl options that send a request somewhere other than the URL's host, or past a certificate check.
_REROUTE = {"--proxy", "--preproxy", "--socks4", "--socks4a", "--socks5", "--socks5-hostname", "--resolve",
            "--connect-to", "--insecure", "--config", "--doh-url", "--location-trusted", "--proxy-insecure"}  # fmt: skip


_DATA_OPTIONS = {"-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--json", "-F", "--form",
                 "--form-string", "-H", "--header", "-A", "--user-agent", "-e", "--referer"}  # fmt: skip


def _to_its_own_api(cmd: SimpleCommand, arg: str) -> bool:
    """A vendor's key sent to that vendor (`curl https://api.telegram.org/bot$TELEGRAM_BOT_TOKEN/...`): every
    secret variable in `arg` is named after the one host the command talks to (TELEGRAM_ -> *.telegram.org, by
    the label before the top-level domain), over https, with no proxy, resolve override or certificate bypass.
    Such a key already belongs to that host; anything else stays an exfiltration finding."""
    if cmd.name != "curl" or any("proxy" in k.lower() for k in cmd.assignments):
        return False
    hosts: set[str] = set()
    for i, a in enumerate(cmd.args):
        if a.split("=", 1)[0] in _REROUTE or (re.fullmatch(r"-[A-Za-z0-9]+", a) and re.search(r"[xkK]", a)):
            return False
        if i and cmd.args[i - 1] in _DATA_OPTIONS:
            continue  # a URL inside the data or a header goes to the host, it names no other host
        if "://" in a:
            parts = urlsplit(a)
            host = parts.hostname or ""
            if parts.scheme != "https" or not re.fullmatch(r"[a-z0-9.-]+", host) or "@" in parts.netloc:
                return False
            hosts.add(host)
    if len(hosts) != 1:
        return False
    labels = hosts.pop().split(".")
    vendor = labels[-2] if len(labels) >= 2 else ""
    names = secret_vars(arg)
    return len(vendor) >= 3 and all(n.split("_", 1)[0].lower() == vendor for n in names)


RULES = (_credentials, _network)


def _is_stdin_interpreter(cmd: SimpleCommand) -> bool:
    if cmd.name not in INTERPRETERS:
        return False
    files = [a for a in cmd.args if not a.startswith("-")]
    if cmd.args[-1:] in (["-c"], ["-e"]) and cmd.name not in ("source", "."):
        return False  # `python3 -c` with its code lost to a stray quote: no script read from stdin
    return not files or files[0] in ("-", "/dev/stdin") or "-s" in cmd.args or cmd.name in ("source", ".")


def pipeline_rules(parsed: ParsedCommand) -> list[Finding]:
    out: list[Finding] = []
    downloaded: set[str] = set()
    for owner, pipe in _all_pipelines(parsed):
        for i, cmd in enumerate(pipe.commands):
            upstream = pipe.commands[:i]
            if _is_stdin_interpreter(cmd) and any(u.name in FETCHERS for u in upstream):
                out.append(
                    Finding("download-exec", "pipes downloaded content into an interpreter (curl | sh)")
                )
            elif _is_stdin_interpreter(cmd) and any(u.name in DECODERS and _decodes(u) for u in upstream):
                out.append(Finding("obfuscated-exec", "pipes a decoded payload into an interpreter"))
            if talks_to_network(cmd) and any(
                (
                    u.name in ("echo", "printf")
                    and any(secret_vars(a) for a in u.args)
                    and not _stdin_header(cmd)
                )
                or u.name in ENV_DUMPERS
                or any(P.is_credential(a) or P.is_credential_dir(a) for a in u.args)
                or u.name == "history"
                for u in upstream
            ):
                names = [c.name for c in pipe.commands]
                out.append(
                    Finding("env-exfil", f"sends the environment or credentials to the network ({names})")
                )
            if cmd.name in FETCHERS:
                downloaded.update(_fetch_outputs(cmd))
            if (cmd.name in INTERPRETERS or cmd.name == "eval") and _runs_fetched(owner, cmd):
                out.append(Finding("download-exec", "runs the output of a download or decoder as code"))
            if not downloaded:
                continue  # nothing fetched to a file so far: nothing below can run one
            files = [a for a in cmd.args if not a.startswith("-")]
            run_target = (
                cmd.name
                if cmd.name.startswith("./")
                else (files[0] if cmd.name in INTERPRETERS and files else "")
            )
            if run_target and any(run_target.lstrip("./") == d.lstrip("./") for d in downloaded):
                out.append(Finding("download-exec", f"downloads {run_target} and runs it"))
    return out


def _stdin_header(cmd: SimpleCommand) -> bool:
    """`printf 'Authorization: Bearer %s' "$TOKEN" | curl -H @- URL`: the stdin is a header (kept out of ps)."""
    return any(a in ("-H", "--header") and b == "@-" for a, b in zip(cmd.args, cmd.args[1:], strict=False))


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


def _runs_fetched(owner: ParsedCommand, cmd: SimpleCommand) -> bool:
    """`eval "$(curl ...)"`, `python3 -c "$(base64 -d ...)"`: an argument that is the output of a substitution
    which downloads or decodes. Only the substitutions in this command's own arguments count: `eval
    "$(ssh-agent -s)"` beside a `$(curl ...)` elsewhere in the script runs no download."""
    fetched = {
        k
        for o, pipe in _all_pipelines(owner)
        for c in pipe.commands
        for k, v in c.assignments.items()
        if _fetches(o, v)
    }
    for a in _code_args(cmd):
        whole = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", a)
        if whole and whole.group(1) in fetched:
            return True  # `code=$(curl ...)`, then `eval "$code"` (data spliced into code is another matter)
        if _fetches(owner, a):
            return True
    return False


def _code_args(cmd: SimpleCommand) -> list[str]:
    """The arguments `cmd` runs as code: all of eval's and source's, the one after -c / -e of an interpreter,
    else its script file (`python3 parse.py "$(curl ...)"` hands the download over as data)."""
    if cmd.name in ("eval", "source", "."):
        return cmd.args
    out = [
        a
        for i, a in enumerate(cmd.args)
        if i and re.fullmatch(r"-\w*[ceEr]|--eval|--command|-Command", cmd.args[i - 1])
    ]
    script = next((a for a in cmd.args if a == "-" or not a.startswith("-")), None)
    return out if out or script is None else [script]  # `bash <(curl ...)`: the script file itself


def _fetches(owner: ParsedCommand, word: str) -> bool:
    """`word` holds the output of one of `owner`'s substitutions that downloads or decodes."""
    for n in re.findall(r"__SUBST(\d+)__", word):
        if int(n) >= len(owner.substitutions):
            continue  # a placeholder of an outer text (resolved code): that text's own parse judges it
        sub = owner.substitutions[int(n)]
        if any(c.name in FETCHERS or (c.name in DECODERS and _decodes(c)) for _, c in sub.walk()):
            return True
    return False


def _all_pipelines(parsed: ParsedCommand) -> list[tuple[ParsedCommand, Pipeline]]:
    """Every pipeline with the parse it belongs to (whose substitutions its `__SUBSTn__` placeholders name)."""
    return [(parsed, p) for p in parsed.pipelines] + [
        x for s in parsed.substitutions for x in _all_pipelines(s)
    ]
