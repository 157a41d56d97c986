"""Reading facts off text, with no model: sentences that state constraints, decisions or findings, `KEY = value`
lines with their subject, definitions and paths. Pure functions; the ledger decides what to keep."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

CODE_EXTS = {
    "py", "js", "ts", "tsx", "jsx", "go", "rs", "java", "kt", "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs",
    "swift", "scala", "sh", "bash", "lua", "sql", "m", "mm", "dart", "ex", "exs", "clj",
}  # fmt: skip
LINE_NO = re.compile(r"^\s*\d+\s*[|│]\s?")  # read_file numbers lines as "    12|text"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[*_0-9])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_NARRATION = re.compile(
    r"^(?:ok(?:ay)?[,.]?\s+)?(?:now,?\s+|next,?\s+|first,?\s+|then,?\s+)?"
    r"(?:let me|let's (?:look|check|read|see|open|run|start|inspect|try|find|search)|i'll (?:now )?"
    r"(?:read|look|check|open|run|search|inspect|start|take a look|have a look|grep|list)|i will (?:now )?"
    r"(?:read|look|check|open|run|search|inspect)|i'm going to (?:read|look|check|open|run)|checking|looking at|"
    r"reading|opening|searching|running)\b",
    re.IGNORECASE,
)
_CONSTRAINT = re.compile(
    r"\b(?:must(?:n'?t)?|never|always|don'?t|do not|does not|doesn'?t|should(?:n'?t)?|shall|need(?:s)? to|"
    r"has to|have to|make sure|ensure|avoid|only|no more than|at most|at least|exceed|within|under no|prefer|"
    r"rather|instead|keep|stick to|limit|required?|requirement|mandatory|forbidden|not allowed|allowed|can'?t|"
    r"cannot|important|careful|without|except|stay|leave|no new|not touch|hands off|off-limits|budget|deadline|please|"
    r"by (?:monday|tuesday|wednesday|thursday|friday|eod|end of)|until|before|after|unless|defaults? to|follows?|"
    r"^use|^do|^don't)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,_]*(?:\.\d+)?(?:[eE]-?\d+)?(?:%|[a-zA-Z]{1,4}\b)?")
_IDENT = re.compile(
    r"`[^`]{2,80}`|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z]+_[a-z0-9_]+\b|"
    r"\b[A-Z]{2,}[a-z]*\d*\b|\b[A-Za-z]+\d+[A-Za-z]*\b|\b[A-Z]+-\d+\b"
)
PATH = re.compile(
    r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.@-]+/)+[\w@-][\w.@-]*\.[A-Za-z0-9]{1,6}\b"
    r"|(?<![\w/.-])[\w-]+\.(?:py|ts|tsx|js|go|rs|java|rb|md|yaml|yml|toml|json|ini|cfg|sql|sh|tf|lock|txt)\b"
)
_ASSIGN = re.compile(
    r"^(?P<indent>\s*)(?:export\s+|const\s+|let\s+|var\s+|final\s+|static\s+)*"
    r"(?P<key>[A-Za-z_][\w.]*)\s*(?::\s*[\w\[\], .|]+?)?\s*(?::=|=)\s*(?P<val>[^=].*?)\s*[;,]?\s*(?:(?:#|//).*)?$"
)
_COLON = re.compile(
    r"^(?P<indent>\s*)(?:-\s+)?(?P<q>[\"']?)(?P<key>[A-Za-z_][\w .%/()-]{0,48}?)(?P=q)\s*:\s+"
    r"(?P<val>[^\s#].*?)\s*,?\s*(?:#.*)?$"
)
_LITERAL = re.compile(
    r"""^(?:-?\d[\d_,]*(?:\.\d+)?(?:[eE]-?\d+)?\s?(?:%|[A-Za-z/]{1,8})?"""  # number, maybe with a unit
    r"""|"[^"]{0,120}"|'[^']{0,120}'"""  # quoted string
    r"""|true|false|True|False|null|None|nil|yes|no|on|off"""
    r"""|\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?"""  # date
    r"""|v?\d+(?:\.\d+){1,3}[\w.-]*"""  # version
    r"""|[\w./:@+-]{1,80}"""  # one bare token (a host, an image, a path, a word)
    r"""|\[[^\[\]]{0,120}\]|\([^()]{0,120}\))$"""  # a short list or tuple
)
_DEFINITION = re.compile(
    r"^(?:export\s+)?(?:async\s+)?(?:def|class|func|function|fn|pub fn|interface|type|struct|enum)\s+"
    r"(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_]\w*)"
)
_TESTS = re.compile(
    r"\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?)(?:,| in \d)|\bRan \d+ tests?\b|"
    r"\bFAILED \(|\bTests?:\s+\d+",
    re.IGNORECASE,
)
_ERROR = re.compile(
    r"\b\w*(?:Error|Exception)\b|Traceback|\bFAILED\b|\bFAIL\b|\berror(?:\[\w+\])?:|\bfatal:|\bpanic:|^E\s{2,}|"
    r"\bERROR\b|\bERR!|Segmentation fault|No such file|not found|Permission denied|\bdenied\b|timed out|refused|"
    r"\bexit(?:ed)?(?: with)?(?: code| status)?[=: ]\s*[1-9]",
    re.IGNORECASE,
)


@dataclass
class Value:
    subject: str  # the key, with its YAML parents ("redis.ttl") when it had any
    text: str  # the line as it was written, stripped
    value: str


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def sentences(text: str) -> list[str]:
    """Sentences and list items of prose, code blocks left out (they are read as values)."""
    prose = re.sub(r"```.*?(?:```|$)", "\n", text, flags=re.DOTALL)
    out = []
    for part in _SENTENCE_END.split(prose):
        part = _BULLET.sub("", part).strip().strip("*").strip()
        if len(part) >= 8 and re.search(r"[A-Za-z]{2}", part):
            out.append(part)
    return out


def is_narration(sentence: str) -> bool:
    return bool(_NARRATION.match(sentence.strip()))


def is_constraint(sentence: str) -> bool:
    return bool(_CONSTRAINT.search(sentence))


def has_subject_number(sentence: str) -> bool:
    """A number that is a fact (a subject next to it), not a line number or a step counter alone."""
    words = re.sub(r"\b(?:step|turn|line|lines|module|part|item)s? \d+\b", "", sentence, flags=re.IGNORECASE)
    return bool(_NUMBER.search(words)) and bool(re.search(r"[A-Za-z]{3}", words))


def has_identifier(sentence: str) -> bool:
    return bool(_IDENT.search(sentence) or PATH.search(sentence))


def paths_in(text: str) -> list[str]:
    found: list[str] = []
    for m in PATH.finditer(text):
        p = m.group(0).rstrip(".")
        if p not in found and not re.match(r"^\d+(\.\d+)+$", p):
            found.append(p)
    return found


def definitions(text: str) -> list[str]:
    names: list[str] = []
    for raw in text.splitlines():
        m = _DEFINITION.match(LINE_NO.sub("", raw))
        if m and m.group("name") not in names:
            names.append(m.group("name"))
    return names


def _literal(val: str) -> bool:
    val = val.strip()
    return bool(val) and len(val) <= 140 and bool(_LITERAL.match(val))


def values_in(text: str, code: bool) -> list[Value]:
    """`KEY = value` / `key: value` lines whose value is a literal. In code, only module-level or UPPER_CASE
    assignments (a local `i = 0` is not a fact); JSON documents are flattened to their scalar leaves."""
    stripped = text.strip()
    if stripped[:1] in "{[" and not code:
        try:
            return _json_values(json.loads(stripped))
        except (json.JSONDecodeError, RecursionError):
            pass
    found: list[Value] = []
    parents: list[tuple[int, str]] = []  # YAML nesting: (indent, key)
    for raw in text.splitlines():
        line = LINE_NO.sub("", raw).rstrip()
        if not line.strip() or line.lstrip().startswith(("#", "//", "--")):
            continue
        indent = len(line) - len(line.lstrip())
        m = _ASSIGN.match(line)
        if m and _literal(m.group("val")):
            key = m.group("key")
            if not code or m.group("indent") == "" or key.isupper():
                found.append(Value(key, line.strip(), m.group("val").strip()))
            continue
        if code:
            continue
        m = _COLON.match(line)
        while parents and parents[-1][0] >= indent:
            parents.pop()
        if m and _literal(m.group("val")):
            key = m.group("key").strip()
            subject = ".".join([p for _, p in parents] + [key])
            found.append(Value(subject, line.strip(), m.group("val").strip()))
        elif re.match(r"^\s*[\w.-]+:\s*$", line):  # a YAML mapping opens
            parents.append((indent, line.strip()[:-1]))
    return found


def _json_values(data: object, prefix: str = "") -> list[Value]:
    out: list[Value] = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += _json_values(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data[:20]):
            out += _json_values(v, f"{prefix}[{i}]")
    elif prefix:
        shown = json.dumps(data, ensure_ascii=False)
        if len(shown) <= 140:
            out.append(Value(prefix, f"{prefix}: {shown}", shown))
    return out


def test_summaries(text: str) -> list[str]:
    return [clip(LINE_NO.sub("", ln).strip(" =-"), 200) for ln in text.splitlines() if _TESTS.search(ln)]


def error_lines(text: str, limit: int = 4) -> list[str]:
    """The lines that say what went wrong: a traceback's last line, failed tests, error/fatal lines."""
    lines = [LINE_NO.sub("", ln).strip() for ln in text.splitlines()]
    found: list[str] = []
    for i, ln in enumerate(lines):
        if not ln or not _ERROR.search(ln) or ln.startswith("Traceback"):
            continue
        if ln.startswith("File ") and i + 1 < len(lines):
            continue  # a traceback frame: the exception line below says more
        item = clip(ln, 240)
        if item not in found:
            found.append(item)
    # the last lines are the conclusion (the exception, the summary); keep those over early noise
    return found[-limit:]
