"""One file of a skill by its kind: the kind from the name or shebang, and the checks any file gets whatever its
kind (risky text patterns, the injection classifier, shell strings in other languages, the prose inside code)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from grove.security.fast.caseless import ASCII_FOLDS
from grove.security.skill_scan.hits import Hit, Level, excerpt, line_of, shifted
from grove.security.skill_scan.shell_script import shell_hits

FileKind = Literal["markdown", "shell", "python", "javascript", "text"]
_SUFFIX_KIND: dict[str, FileKind] = {
    **dict.fromkeys((".md", ".markdown", ".mdx", ".rst"), "markdown"),
    **dict.fromkeys((".sh", ".bash", ".zsh", ".ksh", ".dash", ".command"), "shell"),
    **dict.fromkeys((".py", ".pyw", ".pyi"), "python"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"), "javascript"),
}
MAX_SCAN_BYTES = 1 << 20  # supporting files are at most 1 MiB; a larger file is scanned in its first MiB


def file_kind(path: str | Path, text: str = "") -> FileKind:
    """A file's kind from its extension, else its shebang line; anything else is "text"."""
    kind = _SUFFIX_KIND.get(Path(str(path)).suffix.lower())
    if kind:
        return kind
    words = text[2:200].split("\n", 1)[0].split() if text.startswith("#!") else []
    prog = words[0].rsplit("/", 1)[-1] if words else ""
    if prog == "env":  # #!/usr/bin/env -S python3 -u
        prog = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), "")
    if re.fullmatch(r"(?:ba|z|k|da|a)?sh", prog):
        return "shell"
    if prog.startswith("python"):
        return "python"
    if prog in ("node", "nodejs", "deno", "bun", "tsx", "ts"):
        return "javascript"
    return "text"


# -- patterns any text can hold ---------------------------------------------------------------------------------
_TEXT_PATTERNS: list[tuple[str, Level, re.Pattern[str]]] = [
    (
        "obfuscated payload: decoded data run as code",
        "dangerous",
        re.compile(
            r"(?:exec|eval)\s*\(\s*(?:base64\.b64decode|codecs\.decode|zlib\.decompress|bytes\.fromhex|"
            r"__import__\(['\"](?:base64|codecs|zlib)|atob\(|Buffer\.from\([^)]*,\s*['\"](?:base64|hex))"
            r"|\|\s*(?:base64\s+-{1,2}d\w*|xxd\s+-r\w*)\s*(?:-p\s*)?\|\s*(?:ba|z|da)?sh\b",
            re.I,
        ),
    ),
    (
        "persistence: tells the agent to reinstall or spread itself",
        "caution",  # words, not code: quarantined ("the copy itself" in a copywriting skill is no worm)
        re.compile(
            r"(?:^|[.!:;,]\s*|\b(?:to|then|and|please|must|should|always|also)\s+)"
            r"(?:re-?create|re-?install|restore|copy)\s+(?:this\s+skill|yourself|itself)\b|\b(?:edit|modify|patch|"
            r"overwrite)\s+(?:all\s+)?(?:every\s+other|other|every)\s+skills?\b",
            re.I | re.M,
        ),
    ),
    (
        "memory poisoning: writes standing approvals or rules into memory",
        "dangerous",
        re.compile(
            r"\b(?:save|write|add|store|remember)\b[^\n]{0,40}\b(?:to|in|into)\s+(?:memory|MEMORY\.md|USER\.md)\b"
            r"[^\n]{0,120}\b(?:always\s+(?:approve|allow|trust|run)|never\s+ask|approvals?\s+(?:are\s+)?(?:off|"
            r"disabled)|trusted)",
            re.I,
        ),
    ),
    ("hidden Unicode direction controls", "caution", re.compile("[\u202a-\u202e\u2066-\u2069]")),
    ("obfuscated payload: long hex-escaped string", "caution", re.compile(r"(?:\\x[0-9a-fA-F]{2}){40,}")),
    ("uses sudo", "note", re.compile(r"(?<![^\s`$;&|(])sudo\s")),
    (
        "sends an environment secret over the network (fine for its own API, not elsewhere)",
        "note",
        re.compile(r"\b(?:curl|wget|nc)\b[^\n]*\$\{?\w*(?:API_KEY|TOKEN|SECRET|PASSWORD)\w*", re.I),
    ),
]
_CODE_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
# What every match of a pattern holds, as alternatives (one per way the pattern can match): each a tuple of groups,
# and each group met when the text's folded lowercase holds one of its words (or matches one of its patterns,
# written in lowercase). A text that meets no alternative cannot match, so its search is skipped: same matches,
# most texts spared (the patterns' leading alternations under re.IGNORECASE are slow to try at every position).
Need = str | re.Pattern[str]
# The last group of some is the pattern's own core, case-sensitive on the lowercase: most texts that hold the words
# do not hold them in that order, and the pattern itself (IGNORECASE, leading alternations) is slow to try.
_RESPAWN = re.compile(r"(?:create|install|restore|copy)\s+(?:this\s+skill|yourself|itself)")
_SPREAD = re.compile(r"(?:edit|modify|patch|overwrite)\s+(?:all\s+)?(?:every\s+other|other|every)\s+skill")
_DECODE_RUN = re.compile(
    r"(?:exec|eval)\s*\(\s*(?:base64|codecs|zlib|bytes|__import__|atob|buffer)|\|\s*(?:base64|xxd)\s"
)
_REMEMBER = re.compile(r"(?:to|in|into)\s+(?:memory|user\.md)[^\n]*(?:always|never|approval|trusted)")
_SECRET_SENT = re.compile(r"(?:curl|wget|nc)[^\n]*\$[^\n]*(?:api_key|token|secret|password)")
_NEEDS: dict[str, tuple[tuple[tuple[Need, ...], ...], ...]] = {
    "obfuscated payload: decoded data run as code": ((("exec", "eval", "base64", "xxd"), (_DECODE_RUN,)),),
    "persistence: tells the agent to reinstall or spread itself": (
        (("create", "install", "restore", "copy"), ("yourself", "itself"), (_RESPAWN,)),
        (("create", "install", "restore", "copy"), (re.compile(r"this\s+skill"),), (_RESPAWN,)),
        (
            ("edit", "modify", "patch", "overwrite"),
            (re.compile(r"other\s+skill"), re.compile(r"every\s+skill")),
            (_SPREAD,),
        ),
    ),
    "memory poisoning: writes standing approvals or rules into memory": (
        (
            ("save", "write", "add", "store", "remember"),
            ("memory", "user.md"),
            ("always", "never", "approval", "trusted"),
            (_REMEMBER,),
        ),
    ),
    "obfuscated payload: long hex-escaped string": ((("\\x",),),),
    "uses sudo": ((("sudo",),),),
    "sends an environment secret over the network (fine for its own API, not elsewhere)": (
        (("$",), ("api_key", "token", "secret", "password"), ("curl", "wget", "nc"), (_SECRET_SENT,)),
    ),
}
# Under re.IGNORECASE an ASCII letter matches itself in either case and, of all other characters, only ASCII_FOLDS;
# folded to their letters before lowercasing, the text's lowercase holds a needed word (and matches a needed
# pattern) wherever a pattern could match it.
_FOLD = str.maketrans(dict(zip(ASCII_FOLDS, "iisk", strict=True)))


def folded_lower(text: str) -> str:
    """`text` lowercased, with the non-ASCII letters re.IGNORECASE matches to ASCII letters folded to them."""
    if not text.isascii() and any(c in text for c in ASCII_FOLDS):
        text = text.translate(_FOLD)
    return text.lower()


def _holds(low: str, need: Need) -> bool:
    return need in low if isinstance(need, str) else need.search(low) is not None


def may_match(why: str, low: str, seen: dict[Need, bool] | None = None) -> bool:
    """False only when the pattern `why` cannot match the text whose folded_lower is `low`; `seen` keeps what was
    looked up in that text (patterns share needs)."""
    alternatives = _NEEDS.get(why)
    if alternatives is None:
        return True
    seen = {} if seen is None else seen

    def holds(need: Need) -> bool:
        found = seen.get(need)
        if found is None:
            found = seen[need] = _holds(low, need)
        return found

    return any(all(any(holds(n) for n in group) for group in alt) for alt in alternatives)


# Every character these patterns need is past ASCII (str.isascii is a flag, not a scan).
_NON_ASCII_ONLY = frozenset({"hidden Unicode direction controls"})


def pattern_hits(text: str, kind: FileKind) -> list[Hit]:
    out: list[Hit] = []
    low = folded_lower(text)
    ascii_only = text.isascii()
    seen: dict[Need, bool] = {}
    for why, level, pattern in _TEXT_PATTERNS:
        if kind in ("python", "javascript", "shell") and why.startswith(("persistence: tells", "memory")):
            continue
        if (ascii_only and why in _NON_ASCII_ONLY) or not may_match(why, low, seen):
            continue
        m = pattern.search(text)
        if m:
            out.append(Hit(level, why, line_of(text, m.start()), excerpt(m.group(0))))
    bidi = _CODE_BIDI.search(text) if kind in ("python", "javascript", "shell") and not ascii_only else None
    if bidi:
        out.append(
            Hit(
                "dangerous",
                "hidden Unicode direction controls in code (Trojan Source)",
                line_of(text, bidi.start()),
            )
        )
    return out


def injection_hits(text: str, source: str, keep_level: bool = False) -> list[Hit]:
    """The text-level injection classifier's verdict, one level lower for a skill: instructions to an agent are
    what a skill is, so its confident verdict quarantines (the user can allow it) and its weak one is a note.
    `keep_level` keeps the classifier's own levels (for text that is not a skill, such as memory)."""
    from grove.security.injection.scan import scan_text

    result = scan_text(
        text, source, None if keep_level else "skill"
    )  # a skill: the classifier's skill thresholds
    verdict = str(getattr(result, "verdict", "safe"))
    if not getattr(result, "flagged", False) or verdict not in ("caution", "dangerous"):
        return []
    level: Level = verdict if keep_level else "caution" if verdict == "dangerous" else "note"
    reasons = list(getattr(result, "reasons", []) or [])[:2] or [verdict]
    return [Hit(level, f"possible prompt injection ({r})", 0) for r in reasons]


# Other languages (Ruby, Perl, PHP, Lua): no analyser of their own, but the shell strings they run are read.
_OTHER_CODE = re.compile(r"\.(?:rb|pl|pm|php|lua|tcl)$|^#!\S*(?:/env\s+)?\S*(?:ruby|perl|php|lua|tclsh)")
_SHELL_CALL = re.compile(
    r"(?:\b(?:system|exec|popen|spawn|shell_exec|passthru|proc_open|IO\.popen|Open3\.\w+)\s*\(?\s*|%x\{|qx\{|qx\()"
    r"([\"'])((?:(?!\1).){1,400})\1|`([^`\n]{2,400})`"
)


def other_code(path: str | Path | None, text: str) -> bool:
    return bool((path is not None and _OTHER_CODE.search(str(path))) or _OTHER_CODE.match(text[:120]))


def shell_strings(code: str) -> list[Hit]:
    out: list[Hit] = []
    for m in _SHELL_CALL.finditer(code):
        out += shifted(shell_hits(m.group(2) or m.group(3) or ""), line_of(code, m.start()))
    return out


_JS_PROSE = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:[^\"\\\n]|\\.){20,}\"|'(?:[^'\\\n]|\\.){20,}'|`[^`]{20,}`", re.S
)
_SH_PROSE = re.compile(r"(?:^|\s)#[^!\n][^\n]*|\"[^\"\n]{20,}\"|'[^'\n]{20,}'")


_PROSE_LIKE = re.compile(
    r"(?:[A-Za-z,.'-]+ +){4,}[A-Za-z]"
)  # five words in a row: a sentence, not a URL or a path


def code_prose(code: str, kind: str) -> str:
    """The prose inside code, which a model reading the file also reads: comments, docstrings, long strings."""
    if kind == "python":
        import io
        import tokenize

        out: list[str] = []
        try:
            for tok in tokenize.generate_tokens(io.StringIO(code).readline):
                if tok.type == tokenize.COMMENT or (
                    tok.type == tokenize.STRING and _PROSE_LIKE.search(tok.string)
                ):
                    out.append(tok.string.strip("#\"' \t"))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return ""
        return "\n".join(out)
    pattern = _JS_PROSE if kind == "javascript" else _SH_PROSE
    found = (m.group(0).strip() for m in pattern.finditer(code))
    return "\n".join(p.strip("/*#\"'` ") for p in found if p.startswith(("/", "#")) or _PROSE_LIKE.search(p))
