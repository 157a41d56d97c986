"""What bundled JavaScript (or TypeScript) does, read from its text after folding what can be known statically:
string concatenation, constants, `String.fromCharCode`, `atob` and `Buffer.from(..., "base64"|"hex")`. Then the
commands child_process runs, code given to eval / new Function, home or root deletes, credentials or the whole
environment sent out, reverse shells."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator

from grove.security.skill_scan.hits import (
    CREDENTIAL_PATH,
    Hit,
    analyse,
    command_hits,
    excerpt,
    register,
    shell_words_hits,
)

_STR = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
_CONCAT = re.compile(rf"({_STR})\s*\+\s*({_STR})")
_CONST = re.compile(rf"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*({_STR})\s*;?")
_FROM_CHAR = re.compile(r"String\.fromCharCode\(\s*([\d\s,]+)\)")
_ATOB = re.compile(rf"\batob\(\s*({_STR})\s*\)")
_BUFFER = re.compile(rf"Buffer\.from\(\s*({_STR})\s*,\s*[\"'](base64|hex)[\"']\s*\)(?:\.toString\([^)]*\))?")
_BRACKET = re.compile(r"\[\s*\"([A-Za-z_$][\w$]*)\"\s*\]")
_TEMPLATE = re.compile(r"`([^`]*)`")
_EXEC = re.compile(r"\b(?:exec|execSync)\s*\(\s*(" + _STR + r")")
_SPAWN = re.compile(
    r"\b(?:spawn|spawnSync|execFile|execFileSync|fork)\s*\(\s*(" + _STR + r")\s*(?:,\s*\[([^\]]*)\])?"
)
_EXEC_DYNAMIC = re.compile(r"\b(?:exec|execSync)\s*\(\s*(?![\"'\s])([^;\n]{1,200})")
_EVAL = re.compile(
    r"\b(?:eval|Function|runInThisContext|runInNewContext|runInContext)\s*\(\s*([^;\n]{0,400})"
)
_NETWORK = re.compile(
    r"\bfetch\s*\(|\bhttps?\.(?:request|get)\s*\(|\baxios\b|XMLHttpRequest|\bnet\.(?:connect|createConnection|Socket)\b|"
    r"\bWebSocket\b|\bgot\s*\(|node-fetch|\bsuperagent\b"
)
_DELETE = re.compile(
    r"\b(?:rmSync|rmdirSync|rm|rmdir|removeSync|remove|rimraf(?:\.sync)?)\s*\(\s*([^;\n]{1,200})"
)
_HOME = re.compile(r"os\.homedir\(\)|homedir\(\)|process\.env\.(?:HOME|USERPROFILE)\b|[\"']~[/\"']")
_WHOLE_ENV = re.compile(
    r"JSON\.stringify\(\s*process\.env\s*\)|(?:body|data|json)\s*:\s*process\.env\b(?!\.)|"
    r"\.(?:write|send|end)\(\s*(?:JSON\.stringify\()?process\.env\b(?!\.)"
)
_READ = re.compile(r"\b(?:readFileSync|readFile|createReadStream)\s*\(([^;\n]{1,200})")
_SHELL_SPAWN = re.compile(r"\b(?:spawn|exec|execFile)\w*\s*\(\s*[\"'](?:/bin/)?(?:ba|z|da)?sh[\"']|cmd\.exe")
_NET = re.compile(r"\bnet\.(?:connect|createConnection|Socket)\b")
_MARK = "@@grove-decoded@@"
# Exact gates, same matches for less work. A pattern whose every match begins with one of a few words is tried
# only where one begins (_matches: str.find is many times cheaper than a pattern that starts with a word boundary,
# which the regex engine tries at every position); the others run only on text holding what every match holds.
_CONCAT_GATE = re.compile(r"[\"']\s*\+\s*[\"']")  # the two literals' closing and opening quotes around the +
_NETWORK_WORDS = ("fetch", "http", "axios", "XMLHttpRequest", "net.", "WebSocket", "got", "node-fetch")
_NETWORK_WORDS += ("superagent",)
_CONST_WORDS = ("const", "let", "var")
_EXEC_WORDS = ("exec",)
_EVAL_WORDS = ("eval", "Function", "runIn")
_SPAWN_WORDS = ("spawn", "execFile", "fork")
_DELETE_WORDS = ("rm", "remove", "rimraf")
_READ_WORDS = ("readFile", "createReadStream")


def _matches(pattern: re.Pattern[str], text: str, starts: tuple[str, ...]) -> Iterator[re.Match[str]]:
    """pattern.finditer(text) for a pattern whose every match begins with one of `starts` (and is never empty):
    it is tried only where one of them begins, not at every position."""
    at: set[int] = set()
    for word in starts:
        i = text.find(word)
        while i >= 0:
            at.add(i)
            i = text.find(word, i + 1)
    end = 0
    for i in sorted(at):
        if i >= end and (m := pattern.match(text, i)):
            end = m.end()
            yield m


def _replace(pattern: re.Pattern[str], text: str, name: str, literal: str) -> str:
    """pattern.sub(literal, text) (the literal taken as is) for a pattern whose every match begins with `name`."""
    parts, last = [], 0
    for m in _matches(pattern, text, (name,)):
        parts += [text[last : m.start()], literal]
        last = m.end()
    return "".join(parts) + text[last:] if parts else text


def _unquote(literal: str) -> str:
    if literal.startswith("'"):
        literal = '"' + literal[1:-1].replace('\\"', '"').replace('"', '\\"') + '"'
    try:
        out = json.loads(literal)
        return out if isinstance(out, str) else ""
    except ValueError:
        return literal[1:-1]


def _quote(text: str) -> str:
    return json.dumps(text)


def _decoded(text: str) -> str:
    return _quote(_MARK + text)


def fold(code: str) -> str:
    """Replace what is known statically by string literals (decoded ones marked), until nothing changes."""
    for _ in range(8):
        before = code
        if "fromCharCode(" in code:
            code = _FROM_CHAR.sub(lambda m: _decoded(_chars(m.group(1))), code)
        if "atob(" in code:
            code = _ATOB.sub(lambda m: _decoded(_b64(_unquote(m.group(1)))), code)
        if "Buffer.from(" in code:
            code = _BUFFER.sub(lambda m: _decoded(_buffer(_unquote(m.group(1)), m.group(2))), code)
        if _CONCAT_GATE.search(code):
            code = _CONCAT.sub(lambda m: _quote(_unquote(m.group(1)) + _unquote(m.group(2))), code)
        consts = {m.group(1): m.group(2) for m in _matches(_CONST, code, _CONST_WORDS)}
        for name, lit in consts.items():
            if code.count(name) < 2:  # only its declaration, which the pattern below never replaces
                continue
            use = re.compile(rf"(?<![\w$.\"']){re.escape(name)}(?![\w$\"'])(?!\s*=[^=])(?!\s*:)")
            code = _replace(use, code, name, lit)
        code = _BRACKET.sub(lambda m: "." + m.group(1), code)
        if code == before:
            break
    return code


def _chars(nums: str) -> str:
    try:
        return "".join(chr(int(n)) for n in nums.replace(" ", "").split(",") if n)
    except (ValueError, OverflowError):
        return ""


def _b64(text: str) -> str:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4)).decode("utf-8", "replace")
    except (ValueError, binascii.Error):
        return ""


def _buffer(text: str, enc: str) -> str:
    if enc == "hex":
        try:
            return bytes.fromhex(text).decode("utf-8", "replace")
        except ValueError:
            return ""
    return _b64(text)


def _line(code: str, pos: int) -> int:
    return code.count("\n", 0, pos) + 1


def _template_command(body: str) -> str:
    return re.sub(r"\$\{[^}]*\}", lambda m: "~" if _HOME.search(m.group(0)) else '"$X"', body)


def js_hits(code: str, depth: int = 0) -> list[Hit]:
    """Findings in JavaScript or TypeScript source."""
    if "`" in code:
        code = _TEMPLATE.sub(lambda m: _quote(_template_command(m.group(1))), code)
    folded = fold(code)
    out: list[Hit] = []
    for m in _matches(_EXEC, folded, _EXEC_WORDS):
        command = _unquote(m.group(1))
        line = _line(folded, m.start())
        if _MARK in command:
            out.append(Hit("dangerous", "obfuscated payload: decoded data run as a command", line))
        out += [Hit(h.level, h.why, line, h.excerpt) for h in analyse("shell", command.replace(_MARK, ""))]
    for m in _matches(_SPAWN, folded, _SPAWN_WORDS):
        words = [_unquote(m.group(1))] + [
            _unquote(w) if w[0] in "\"'" else '"$X"' for w in re.findall(rf"{_STR}|[^,\s]+", m.group(2) or "")
        ]
        out += shell_words_hits([w.replace(_MARK, "") for w in words], _line(folded, m.start()))
    for m in _matches(_EXEC_DYNAMIC, folded, _EXEC_WORDS):
        if _MARK in m.group(1) or re.search(r"\batob\(|Buffer\.from\(|fromCharCode", m.group(1)):
            out.append(
                Hit(
                    "dangerous", "obfuscated payload: decoded data run as a command", _line(folded, m.start())
                )
            )
    network = next(_matches(_NETWORK, folded, _NETWORK_WORDS), None) is not None
    for m in _matches(_EVAL, folded, _EVAL_WORDS):
        arg, line = m.group(1), _line(folded, m.start())
        if _MARK in arg or re.search(r"\batob\(|Buffer\.from\(|fromCharCode|unescape\(", arg):
            out.append(Hit("dangerous", "obfuscated payload: decoded data run as code", line))
        literals = [_unquote(s) for s in re.findall(_STR, arg)]
        if literals and depth < 3:
            inner = "".join(s.replace(_MARK, "") for s in literals)
            out += [Hit(h.level, h.why, line, h.excerpt) for h in js_hits(inner, depth + 1)]
        elif network and re.search(r"\b(?:text|body|data|response|res|code|script)\b", arg):
            out.append(Hit("dangerous", "runs code downloaded from the network", line))
    for m in _matches(_DELETE, folded, _DELETE_WORDS):
        target, line = m.group(1).strip(), _line(folded, m.start())
        home = _HOME.search(target)
        if home:
            subpath = [_unquote(q) for q in re.findall(_STR, target[home.end() :].split("{")[0])]
            out += command_hits("rm -rf ~/" + "/".join(p.strip("/") for p in subpath if p.strip("/")), line)
        elif target.startswith(('"/', "'/")):
            # None only for a quote never closed on its line: that raises here, as it did before the types
            quoted = re.match(_STR, target)
            out += command_hits(f"rm -rf {_unquote(quoted.group(0))}", line)  # pyright: ignore[reportOptionalMemberAccess]
    reads = [m for m in _matches(_READ, folded, _READ_WORDS) if CREDENTIAL_PATH.search(m.group(1))]
    for m in reads:
        level = "dangerous" if network else "caution"
        why = "credential access: reads key or token files" + (" and uses the network" if network else "")
        out.append(Hit(level, why, _line(folded, m.start()), excerpt(m.group(1))))
    whole_env = network and "process.env" in folded and _WHOLE_ENV.search(folded)
    if whole_env:
        out.append(
            Hit(
                "dangerous",
                "exfiltration: sends the whole environment to the network",
                _line(folded, whole_env.start()),
            )
        )
    if next(_matches(_NET, folded, ("net.",)), None) and _SHELL_SPAWN.search(folded):
        out.append(Hit("dangerous", "exfiltration: opens a reverse shell (socket wired to a shell)", 1))
    return out


register("javascript", js_hits)
