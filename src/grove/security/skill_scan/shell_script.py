"""What a shell script does: the command classifier on the whole script (so variables, traps and substitutions
carry over lines), plus what only scripts do: Python or JavaScript handed to an interpreter, files downloaded then
run, credential files uploaded or read beside network use."""

from __future__ import annotations

import re

from grove.security.skill_scan.hits import (
    CREDENTIAL_PATH,
    Hit,
    analyse,
    command_hits,
    excerpt,
    line_of,
    register,
    shifted,
)


def script_text(body: str) -> str:
    # one script, not line by line: `d=$(mktemp -d)` on one line makes `rm -rf "$d"` on the next fine
    logical = re.sub(r"\\\n\s*", " ", body)
    # comments (the shebang too) run nothing: blank them, keeping the line numbers
    logical = re.sub(r"^[ \t]*#[^\n]*", "", logical, flags=re.M)
    return "\n".join(re.sub(r"^\s*\$\s", "", ln) for ln in logical.splitlines())


_INLINE_CODE = re.compile(r"\b(python3?|node)\s+(?:-\w+\s+)*-(c|e)\s+(\"(?:[^\"\\]|\\.)*\"|'[^']*')")
_HEREDOC_CODE = re.compile(
    r"\b(python3?|node)\b[^\n]*<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)^\s*\2\s*$", re.M | re.S
)
_NET_COMMAND = re.compile(
    r"(?:^|[\s;&|(`])(?:curl|wget|nc|ncat|socat|scp|rsync|sftp|ftp|telnet)\s|/dev/(?:tcp|udp)/"
)
_UPLOAD_FORM = re.compile(r"(?:@|-T\s+|--upload-file\s+|<\s*)[\"']?(?:\$\{?HOME\}?|~)?[^\s\"']*$")
_READS_FILE = re.compile(r"\b(?:cat|base64|tar|zip|gzip|xxd|od|openssl|cp|head|tail|less|strings)\b")
# `echo 'export NAME="value"' >> ~/.bashrc`, PATH only extended with folders in home, /usr/local or /opt
_ENV_LINE = re.compile(
    r"""^\s*echo\s+(['"])export\s+(?!(?:LD_\w+|PROMPT_COMMAND|BASH_ENV|ENV|NODE_OPTIONS|PYTHONSTARTUP|PS\d)=)"""
    r"""(?:PATH=\\?"?(?:(?:\$HOME|\$\{HOME\}|~|/usr/local|/opt)[\w./-]*:)*\$\{?PATH\}?"""
    r"""(?::(?:\$HOME|~|/usr/local|/opt)[\w./-]*)*\\?"?"""
    r"""|(?!PATH=)[A-Za-z_]\w*=(?:\\?"[^"$`\\]*\\?"|[^\s'"$`;&|]*))\1\s*>>\s*(?:~|\$HOME|\$\{HOME\})/"""
    r"""\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv)\s*(?:#.*)?$"""
)
_ENABLE_SERVICE = re.compile(r"^\s*(?:sudo\s+)?systemctl\s+(?:--\w+\s+)*enable\s+(?:--now\s+)?[\w@.-]+\s*$")
# what a script must not send anywhere: credential files, and .env files of secrets
_SECRET_FILE = re.compile(
    CREDENTIAL_PATH.pattern + r"|(?<![\w.-])\.env(?:\.(?:local|production|prod))?(?![\w.-])", re.I
)
_DOWNLOAD_TO = re.compile(
    r"\b(?:curl|wget)\b[^\n|;&]*?\s(?:-o|-O|--output(?:-document)?|-\w*O)[ =]?([^\s;&|]+)"
)


def shell_hits(script: str) -> list[Hit]:
    """A script as one program (variables and traps carry over lines); each finding placed on its line. Code
    given to python -c / node -e or a heredoc goes to its analyser."""
    whole = script_text(script)
    found = command_hits(whole, 1)
    lines = whole.splitlines()
    placed: list[Hit] = []
    # Each line classified at most once, only when the whole script found something, and only as far down as a
    # finding still needs: its first line that is no startup-file env line (all lines when it has none).
    line_whys: list[set[str]] = []

    def whys(i: int) -> set[str]:
        while len(line_whys) < i:
            n = len(line_whys) + 1
            line_whys.append({h.why for h in command_hits(lines[n - 1], n)})
        return line_whys[i - 1]

    for hit in found:
        first = where = 0
        for i in range(1, len(lines) + 1):
            if hit.why in whys(i):
                first = first or i
                if not _ENV_LINE.match(lines[i - 1]):
                    where = i
                    break
        if first and not where:  # every line it is on sets an env var in a startup file
            # `echo 'export API_KEY="..."' >> ~/.bashrc`: a setup step, not a hook that runs code
            why = "adds an environment variable to a shell startup file"
            placed.append(Hit("note", why, first, excerpt(lines[first - 1])))
            continue
        level = hit.level
        if where and hit.why.startswith("persistence") and _ENABLE_SERVICE.search(lines[where - 1]):
            level = "caution"  # `systemctl enable nginx`: a named service at boot, approval asks when it runs
        if not where:  # a finding of the script as a whole (`curl -o f URL`, then `./f`): its first command
            where = next((i for i, ln in enumerate(lines, 1) if ln.strip()), 1)
        placed.append(Hit(level, hit.why, where, excerpt(lines[where - 1]) if lines else ""))
    for m in _INLINE_CODE.finditer(script):
        code = m.group(3)[1:-1]
        code = code.replace('\\"', '"') if m.group(3).startswith('"') else code
        lang = "python" if m.group(1).startswith("python") else "javascript"
        placed += [Hit(h.level, h.why, line_of(script, m.start()), h.excerpt) for h in analyse(lang, code)]
    for m in _HEREDOC_CODE.finditer(script):
        lang = "python" if m.group(1).startswith("python") else "javascript"
        placed += shifted(analyse(lang, m.group(3)), line_of(script, m.start(3)))
    placed += _credential_flow(script)
    for m in _DOWNLOAD_TO.finditer(script):
        target = m.group(1).strip("\"'")
        rest = script[m.end() :]
        name = re.escape(target)
        if re.search(rf"(?:^|[;&|(]\s*|\b(?:exec|sudo|source|\.)\s+){name}(?:\s|$)", rest, re.M):
            why = "runs code downloaded from the network (downloads a file, then runs it)"
            placed.append(Hit("dangerous", why, line_of(script, m.start()), excerpt(m.group(0))))
    return placed


def _credential_flow(script: str) -> list[Hit]:
    """Credential files uploaded (`curl -d @~/.aws/credentials`, `-F f=@.env`, `-T`, `< file`, `scp` or `rsync`
    of one) or read by a script that also talks to the network. Using a key (`ssh -i ~/.ssh/id_ed25519`) is
    neither."""
    out: list[Hit] = []
    network = bool(_NET_COMMAND.search(script))
    for n, ln in enumerate(script.splitlines(), 1):
        code = ln.split(" #", 1)[0]
        for m in _SECRET_FILE.finditer(code):
            before = code[: m.start()]
            if re.search(r"(?:-i|IdentityFile|--key|--cert|-identity)\s*[=\s]\S*$", before):
                continue
            copies = re.search(r"(?:^|[\s;&|(])(?:scp|rsync|sftp)\s", before)
            if copies or (_NET_COMMAND.search(code) and _UPLOAD_FORM.search(before)):
                out.append(Hit("dangerous", "exfiltration: uploads a credential file", n, excerpt(code)))
            elif network and CREDENTIAL_PATH.match(m.group(0)) and _READS_FILE.search(before):
                why = "exfiltration: reads credential files in a script that uses the network"
                out.append(Hit("dangerous", why, n, excerpt(code)))
            break
    return out


register("shell", shell_hits)
