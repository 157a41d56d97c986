"""The JavaScript analyser's gates change no match: a pattern tried only where its first words begin finds what
its finditer / sub over the whole text found, and the gated folds and findings still come out."""

from __future__ import annotations

import random
import re

import pytest

from grove.security.skill_scan import js_code as skill_js
from grove.security.skill_scan.js_code import _matches, _replace, js_hits

_TOKENS = [
    "exec", "execSync", "execFile", "spawn", "fork", "eval", "Function", "runInContext", "rm", "rmdir", "remove",
    "rimraf.sync", "readFile", "createReadStream", "const", "let", "var", "fetch", "node-fetch", "got", "axios",
    "http.get", "net.connect", "net.Socket", "WebSocket", "superagent", "XMLHttpRequest", "xexec", "form", "$let",
    "_var", "(", ")", "[", "]", '"', "'", '"~/.ssh/id_rsa"', "'/bin/sh'", "=", "==", ":", ";", "+", ",", " ", " ",
    "\n", ".", "a", "b", "os.homedir()", "process.env", "'rm -rf ~'", '"ls"', "exec('ls')", "execSync(a)",
    "const a = 'x';", 'let b = "y"', "spawn('sh', ['-c', a])", "fork('x')", "eval(a)", "new Function('x')",
    "fs.rmSync(os.homedir())", "remove('/tmp')", "readFileSync('~/.ssh/id_rsa')", "fetch(u)", "got(u)",
    "net.connect(1)", "axios.post(", "http.request(",
]  # fmt: skip
_PATTERNS = {
    "const": (skill_js._CONST, skill_js._CONST_WORDS),
    "exec": (skill_js._EXEC, skill_js._EXEC_WORDS),
    "exec_dynamic": (skill_js._EXEC_DYNAMIC, skill_js._EXEC_WORDS),
    "spawn": (skill_js._SPAWN, skill_js._SPAWN_WORDS),
    "eval": (skill_js._EVAL, skill_js._EVAL_WORDS),
    "delete": (skill_js._DELETE, skill_js._DELETE_WORDS),
    "read": (skill_js._READ, skill_js._READ_WORDS),
    "network": (skill_js._NETWORK, skill_js._NETWORK_WORDS),
    "net": (skill_js._NET, ("net.",)),
}


def _texts(n: int) -> list[str]:
    rng = random.Random(16)
    return ["".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 60))) for _ in range(n)]


@pytest.mark.parametrize("name", sorted(_PATTERNS))
def test_matches_finds_what_finditer_finds(name: str) -> None:
    pattern, words = _PATTERNS[name]
    found = 0
    for text in _texts(3000):
        want = [(m.span(), m.groups()) for m in pattern.finditer(text)]
        assert [(m.span(), m.groups()) for m in _matches(pattern, text, words)] == want, text
        found += len(want)
    assert found > 200  # the texts exercise the pattern


def test_replace_is_sub() -> None:
    changed = 0
    for text in _texts(3000):
        for name in ("a", "b", "let"):
            use = re.compile(rf"(?<![\w$.\"']){re.escape(name)}(?![\w$\"'])(?!\s*=[^=])(?!\s*:)")
            want = use.sub(lambda _m: '"v\\1"', text)
            assert _replace(use, text, name, '"v\\1"') == want, text
            changed += want != text
    assert changed > 100


def test_the_concat_gate_holds_for_every_concatenation() -> None:
    for text in _texts(3000):
        if skill_js._CONCAT.search(text):
            assert skill_js._CONCAT_GATE.search(text), text


def test_a_constant_used_once_more_is_still_folded() -> None:
    assert "exec('rm -rf ~')" in skill_js.fold("const q = 'rm -rf ~';\nexec(q)")  # q: twice
    assert skill_js.fold("const c = 'x';\n") == "const c = 'x';\n"


def test_gated_findings_still_come_out() -> None:
    code = "const net = require('net');\nconst s = net.connect(4444, 'h');\nspawn('/bin/sh', []);\n"
    assert any("reverse shell" in h.why for h in js_hits(code))
    sends = "const fs = require('fs');\nfetch(u, {body: JSON.stringify(process.env)});\n"
    assert any("whole environment" in h.why for h in js_hits(sends))
    assert not any("whole environment" in h.why for h in js_hits(sends.replace("fetch(u, ", "log(")))
    hidden = "exec(atob('cm0gLXJmIH4='))\n"
    assert [h.why for h in js_hits(hidden)][:1] == ["obfuscated payload: decoded data run as a command"]
    assert [h.excerpt for h in js_hits("const d = 1;\nfs.rmSync(os.homedir())\n")] == ["rm -rf ~/"]
