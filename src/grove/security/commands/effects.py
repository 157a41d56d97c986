"""Effects of code run by interpreters (python, perl, node, ruby, php, awk) and of SQL fed to databases: deletes,
overwrites, shell-outs (read as shell and classified like any command), network + execute, exfiltration,
setuid. What a call does with a path computed at run time is unknown."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from grove.lazy_regex import later
from grove.security.commands import paths as P
from grove.security.commands.base import DESTRUCTIVE_SQL, Finding

_DELETE = later(
    r"\b(?:shutil\.)?rmtree\s*\(|\bos\.(?:remove|unlink|rmdir|removedirs)\s*\(|\.unlink\s*\(|\.rmdir\s*\("
    r"|\bremove_tree\b|\brmtree\b|\btruncateSync\b|\bftruncate\w*\s*\(|\bunlink\b|\brmSync\b|\brmdirSync\b|\bunlinkSync\b|\bfs(?:\.promises)?\.(?:rm|unlink|rmdir)\s*\("
    r"|\brimraf\b|FileUtils\.(?:rm_rf|rm_r|rm|remove_dir|remove_entry|rmtree)|\bFile\.(?:delete|unlink)\b"
    r"|\bDir\.(?:rmdir|delete|unlink)\b|\bRemove-Item\b|\bdeleteSync\b|\btruncate\s*\("
)
_WRITE = later(
    r"\bopen\s*\(\s*(['\"])([^'\"]+)\1\s*,\s*['\"][wa]|writeFileSync\s*\(\s*([^,]+),|\bFile\.write\s*\(\s*([^,]+),"
    r"|write_text\s*\(|write_bytes\s*\(|file_put_contents\s*\(\s*([^,]+),"
)
_SHELL_OUT = later(
    r"\bos\.(?:system|popen|exec\w*|spawn\w*)\s*\(|\bsubprocess\.\w+\s*\(|\bcommands\.getoutput\s*\(|\bpty\.spawn\s*\("
    r"|\bchild_process\.\w+\s*\(|\bexecSync\s*\(|\bexecFileSync\s*\(|\bspawnSync\s*\(|\bchild_process\b[^;]*\.(?:exec|spawn)\w*\s*\("
    r"|\bsystem\s*[\s(]|\bexec\s*[\s(]\s*['\"]|\bshell_exec\s*\(|\bpassthru\s*\(|\bproc_open\s*\(|\bpopen\s*\("
    r"|`[^`]+`|%x[({]|\bOpen3\.\w+\s*\(|\bIO\.popen\s*\(|\bSpawn\s*\(|\bos\.execute\s*\(|\bio\.popen\s*\("
    r"|do shell script|\bInvoke-Expression\b|\biex\s|\bStart-Process\b|\bsystem2\s*\(|\bRuntime\.getRuntime\(\)\.exec"
)
_NETWORK = later(
    r"urllib|urlopen|\brequests\.|http\.client|httpx|\bsocket\b|aiohttp|\bfetch\s*\(|\bhttps?\.(?:get|request)\b"
    r"|\bnet\.(?:connect|Socket)|Net::HTTP|open-uri|LWP|HTTP::Tiny|IO::Socket|curl_exec|file_get_contents\s*\(\s*['\"]https?:"
    r"|\bURI\.open|smtplib|ftplib|paramiko|\bwebsocket"
)
_EXEC = later(
    r"\bexec\s*\(|\beval\s*\(|\bcompile\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bimportlib|\bexecfile\b|\brunpy\b"
    r"|\binstance_eval\b|\bvm\.run"
)
_ENV_ALL = later(
    r"os\.environ(?!\s*(?:\[|\.get\s*\(\s*['\"]))|dict\s*\(\s*os\.environ|process\.env(?!\.\w|\[)|%ENV\b|\bENV\.to_h"
    r"|\bENV\.(?:each|to_a|inspect)|getenv\s*\(\s*\)|/proc/self/environ"
)
_SETUID = later(
    r"chmod\s*\([^)]*(?:0o?[2-7][0-7]{3}\b|S_IS[UG]ID|\b(?:2[0-9]{3}|3[0-9]{3})\b)|\bsetuid\s*\(\s*0\s*\)"
)
_HOME_REF = later(
    r"expanduser|Path\.home\s*\(|homedir\s*\(|\$ENV\{['\"]?HOME|Dir\.home|ENV\[['\"]HOME|os\.environ\[['\"]HOME"
    r"|getenv\(['\"]HOME|\bhome\s*\(\)|~/"
)
_STRING = later(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_DYNAMIC = later(
    r"\b(?:exec|eval)\s*\((?!\s*['\"])|\bgetattr\s*\([^)]*(?:\+|%|\.join|\bchr\()|__import__\s*\((?!\s*['\"])"
    r"|\bcompile\s*\((?!\s*r?['\"])|\bnew\s+Function\s*\(|\brequire\s*\([^)'\"]*\+|\bsend\s*\(\s*:?\w*\s*\+"
)
_DECODED_EXEC = later(
    r"(?:exec|eval)\s*\(\s*(?:base64|codecs|zlib|bytes\.fromhex|__import__\(['\"]base64|atob|Buffer\.from)"
)


def _literals(text: str) -> list[str]:
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _STRING.finditer(text)]


def _pathlike(s: str) -> bool:
    return bool(s) and (s.startswith(("/", "~", "$HOME", "..")) or "/" in s) and " " not in s.strip()


def _outside(path: str, ws: str | None) -> bool:
    p = path.replace("$HOME", "~")
    return P.outside(p, ws) or P.escapes_up(p) or p.startswith("..")


_PY_ALIAS = later(r"\bimport\s+([\w.]+)\s+as\s+(\w+)")
_PY_FROM = later(r"\bfrom\s+([\w.]+)\s+import\s+([\w\s,]+?)(?:$|;|\n)")
_JS_MODULE = later(r"\b(?:const|let|var)\s+(\w+)\s*=\s*require\s*\(\s*['\"]([\w:/_-]+)['\"]\s*\)")
_ASSIGNED = later(
    r"(?:\bmy\s+|\blocal\s+|\bvar\s+|\blet\s+|\bconst\s+)?[$@]?\b(\w+)\s*=\s*(['\"])((?:(?!\2).)*)\2"
)


def _canonical(code: str) -> str:
    """Undo module aliases so the patterns see `subprocess.call`, not `sp.call` or a bare `call`."""
    for module, alias in _PY_ALIAS.findall(code):
        code = re.sub(rf"\b{re.escape(alias)}\.", module + ".", code)
    for module, names in _PY_FROM.findall(code):
        for item in names.split(","):
            parts = item.split()
            if parts:
                code = re.sub(rf"(?<![.\w]){re.escape(parts[-1])}\s*\(", f"{module}.{parts[0]}(", code)
    for alias, module in _JS_MODULE.findall(code):
        code = re.sub(rf"\b{re.escape(alias)}\.", module.replace("node:", "") + ".", code)
    return code


def _inline_vars(code: str) -> str:
    """A shell-out whose argument is a variable set to a literal in the same code gets the literal."""
    values = {name: value for name, _, value in _ASSIGNED.findall(code)}
    if not values:
        return code

    def fill(m: re.Match[str]) -> str:
        return m.group(1) + repr(values[m.group(2)]) if m.group(2) in values else m.group(0)

    return re.sub(
        r"((?:system|exec|execSync|popen|call|run|execute|Popen|check_output|spawn)\s*[\s(]\s*)\$?(\w+)",
        fill,
        code,
    )


def code_findings(
    lang: str, code: str, ws: str | None, classify_shell: Callable[[str], list[Finding]], depth: int = 0
) -> list[Finding]:
    """Findings for a piece of interpreter code. `classify_shell` classifies a shell string it runs."""
    out: list[Finding] = []
    code = _inline_vars(_canonical(code))
    if depth < 2:
        for payload in decoded_payloads(code):
            out += classify_shell(payload) + code_findings(lang, payload, ws, classify_shell, depth + 1)
    literals = _literals(code)
    paths = [s for s in literals if _pathlike(s)]
    outside = [p for p in paths if _outside(p, ws)]
    home = _HOME_REF.search(code) is not None
    if _DELETE.search(code) and (lang != "perl" or re.search(r"\bunlink\b|rmtree|remove_tree|rmdir", code)):
        if outside or home:
            where = outside[0] if outside else "the home directory"
            root = any(P.is_root(p) or P.is_home(p) for p in outside)
            out.append(Finding("code-delete", f"{lang} code deletes {where}", hard=False, effect="delete"))
            if root and "rmtree" in code:
                out.append(
                    Finding("rm-root", f"{lang} code deletes {where} recursively", hard=True, effect="delete")
                )
        elif not paths and not re.search(r"['\"][\w.*-]+['\"]", code):
            out.append(
                Finding(
                    "unknown-code-delete",
                    f"{lang} code deletes paths computed at run time",
                    effect="unknown",
                    unknown=True,
                )
            )
    for m in _WRITE.finditer(code):
        target = next((g for g in m.groups()[1:] if g), "")
        target_paths = [s for s in _literals(target) if _pathlike(s)] or (
            [target] if _pathlike(target) else []
        )
        if any(P.is_startup(t.replace("$HOME", "~")) or P.is_system(t) for t in target_paths) or (
            _HOME_REF.search(target) and re.search(r"\.(?:bash|zsh|profile)|rc['\"]", code)
        ):
            out.append(
                Finding("code-overwrite", f"{lang} code overwrites {target.strip()[:60]}", effect="overwrite")
            )
    if _SHELL_OUT.search(code):
        shell_texts = _shell_strings(lang, code)
        if shell_texts:
            for text in shell_texts:
                if text == _UNREAD:
                    out.append(
                        Finding(
                            "unknown-code-shell",
                            f"{lang} code runs a command that is computed, or more commands than are read",
                            effect="unknown",
                            unknown=True,
                        )
                    )
                else:
                    out += classify_shell(text)
        else:
            out.append(
                Finding(
                    "unknown-code-shell",
                    f"{lang} code runs a command computed at run time",
                    effect="unknown",
                    unknown=True,
                )
            )
    if _DYNAMIC.search(code):
        out.append(
            Finding(
                "unknown-code-eval",
                f"{lang} code evaluates or looks up names computed at run time",
                effect="unknown",
                unknown=True,
            )
        )
    if _NETWORK.search(code) and _EXEC.search(code):
        out.append(Finding("download-exec", f"{lang} code downloads and runs code", effect="network-exec"))
    if _NETWORK.search(code) and (_ENV_ALL.search(code) or any(P.is_credential(s) for s in literals)):
        out.append(
            Finding("env-exfil", f"{lang} code sends the environment or credentials out", effect="exfiltrate")
        )
    if _DECODED_EXEC.search(code):
        out.append(Finding("obfuscated-exec", f"{lang} code runs a decoded payload", effect="unknown"))
    if _SETUID.search(code):
        out.append(Finding("setuid", f"{lang} code sets a setuid/setgid bit", effect="privilege"))
    if DESTRUCTIVE_SQL.search(code) and re.search(
        r"execute|exec|query|run\(|cursor|\.sql|prepare", code, re.I
    ):
        out.append(Finding("sql-destroy", f"{lang} code runs destructive SQL", effect="db-destroy"))
    return out


_UNREAD = "\x00unread"
_PURE_ARG = later(
    r"\s*(?:[rbuf]?(['\"])(?:(?!\1)[^\\]|\\.)*\1|\[\s*(?:(['\"])(?:(?!\2)[^\\]|\\.)*\2\s*,?\s*)*\])\s*\)?\s*;?\s*",
    re.S,
)
_ENCODED = later(
    r"(?:b64decode|decodebytes|decodestring|atob|decode64|decode_base64)\s*\(\s*b?(['\"])([A-Za-z0-9+/=\s]{8,})\1"
    r"|Buffer\.from\s*\(\s*(['\"])([A-Za-z0-9+/=]{8,})\3\s*,\s*['\"]base64"
    r"|(?:fromhex|unhexlify|pack\s*\(\s*['\"]H\*['\"]\s*,)\s*\(?\s*b?(['\"])([0-9a-fA-F\s]{8,})\5"
)


def _first_arg(args: str) -> str:
    """The call's first argument, up to a comma at the top level."""
    depth, quote = 0, ""
    for i, ch in enumerate(args):
        if quote:
            quote = "" if ch == quote and args[i - 1] != "\\" else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return args[:i]
    return args


def decoded_payloads(code: str) -> list[str]:
    """Base64 and hex literals that the code decodes: what they hide is read like the code itself."""
    out = []
    for m in _ENCODED.finditer(code):
        b64, hexa = m.group(2) or m.group(4), m.group(6)
        try:
            raw = (
                base64.b64decode(re.sub(r"\s", "", b64))
                if b64
                else bytes.fromhex(re.sub(r"\s", "", hexa or ""))
            )
        except (ValueError, binascii.Error):
            continue
        out.append(raw.decode("utf-8", errors="replace"))
    return out


def _shell_strings(lang: str, code: str) -> list[str]:
    """The shell commands a piece of code runs: string arguments of system()/subprocess/exec calls."""
    out: list[str] = []
    for n, m in enumerate(_SHELL_OUT.finditer(code)):
        if n >= 64:  # a wall of calls: what is not read is not approved silently either
            out.append(_UNREAD)
            break
        if m.group(0).startswith("`"):
            out.append(m.group(0).strip("`"))
            continue
        rest = code[m.end() : m.end() + 4000]
        depth, end = 1, len(rest)
        for i, ch in enumerate(rest):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    end = i
                    break
            elif ch in ";\n" and depth == 1 and not m.group(0).rstrip().endswith("("):
                end = i
                break
        args = rest[: end + 1]
        literals = _literals(args)
        if not _PURE_ARG.fullmatch(_first_arg(args)):
            out.append(_UNREAD)  # the command is computed (a call, a concatenation, a variable)
            continue
        if not literals:
            continue
        listish = "[" in args[:3] or (lang in ("perl", "ruby") and len(literals) > 1) or "spawn" in m.group(0)
        out.append(" ".join(literals) if listish else literals[0])
    return out


def sql_findings(text: str) -> list[Finding]:
    if DESTRUCTIVE_SQL.search(text):
        return [
            Finding(
                "sql-destroy",
                "destructive SQL (DROP/TRUNCATE, DELETE or UPDATE without a real WHERE)",
                effect="db-destroy",
            )
        ]
    return []
