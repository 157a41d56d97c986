"""The record's objects a clause names: a path, a command's word, a version, a flag, a route or a file named by its
stem ("the sample" is sample.json); a claim about a state is checked only against calls on what it names."""

from __future__ import annotations

import re

from grove.claims.patterns import BACKTICKED, STOPWORDS
from grove.claims.record import Event, TurnRecord, norm_path, same_path
from grove.lazy_regex import later

# a word that names one thing exactly: a version, a flag, a route, a host, a dotted or dashed name
_SPECIFIC = later(
    r"(?<![\w-])(--?[a-z][\w-]+|v?\d+(?:\.\d+)+\w*|/[\w./{}:-]+|[\w-]+(?:[./:][\w-]+)+)(?![\w-])", re.I
)
# what a command runs: its program and the word after it (cargo clippy, go vet, npm audit), past env, cd, sudo
_PROGRAM = later(
    r"(?:^|&&|;|\|\|?)\s*(?:\w+=\S+\s+|sudo\s+|timeout\s+\S+\s+|python3?\s+-m\s+|npx\s+)*([\w.-]+)"
    r"(?:\s+([a-z][\w-]*))?(?:\s+([a-z][\w-]*))?"
)
_CONTENT = later(r"[a-z][a-z0-9_]{2,}")
_PRONOUN = later(r"^\W*(it|they|them|these|those|this|that|both)\b", re.I)
_TESTS = later(r"\b(tests?|specs?|suite)\b", re.I)


def stem(word: str) -> str:
    """A word without its ending: tagged ~ tag, pruned ~ prune, seeds ~ seed."""
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":
        w = w[:-1]
    return w


def specifics(text: str) -> list[str]:
    """The clause's exact names: backticked code and words like v1.4.0, --output, /api/items, sample.json."""
    found = [c.strip() for c in BACKTICKED.findall(text)]
    found += [m.group(1).rstrip(".,;:") for m in _SPECIFIC.finditer(BACKTICKED.sub(" ", text))]
    return [f for f in found if len(f) >= 3]


def _haystack(event: Event) -> str:
    return " ".join([event.command, *map(str, event.args.values())])


def _stems_of_paths(event: Event) -> set[str]:
    out = set()
    for path in event.paths():
        name = norm_path(path).rsplit("/", 1)[-1]
        base = name.split(".", 1)[0].lower()
        if len(base) >= 3:
            out.add(base)
    return out


# tools an answer names as the one that reported a result ("npm audit reports no vulnerabilities"): naming one
# says it ran this turn
TOOLS = frozenset(
    [
        "npm",
        "yarn",
        "pnpm",
        "pip",
        "poetry",
        "uv",
        "cargo",
        "clippy",
        "rustc",
        "go",
        "gofmt",
        "vet",
        "golangci-lint",
        "pytest",
        "tox",
        "jest",
        "vitest",
        "mocha",
        "ruff",
        "flake8",
        "pylint",
        "mypy",
        "pyright",
        "black",
        "isort",
        "eslint",
        "prettier",
        "tsc",
        "make",
        "cmake",
        "gradle",
        "mvn",
        "dotnet",
        "terraform",
        "helm",
        "kubectl",
        "docker",
        "git",
        "gh",
        "shellcheck",
        "hadolint",
        "bandit",
        "semgrep",
        "trivy",
        "audit",
        "coverage",
        "lighthouse",
    ]
)


def tools_named(text: str) -> list[str]:
    """The tools the clause names as its subject ("npm audit reports ...", not "... runs pytest")."""
    if not _REPORTING.search(text):
        return []  # "git rebase rewrites the commits": what the tool does, not what it told this turn
    words = re.findall(r"(?<![\w./-])[a-z][\w-]*(?![\w./-])", BACKTICKED.sub(" ", text.lower()))
    return [w for w in words[:3] if w in TOOLS]


# what a tool says of the work: "reports no vulnerabilities", "has no complaints", "is quiet", "passes"
_REPORTING = later(
    r"\b(reports?|says?|shows?|finds?|found|flags?|prints?|outputs?|has no|have no|complains?|warns?|lists?|"
    r"(is|are) (quiet|happy|clean|green|silent|satisfied)|pass(es)?)\b|\w'd\b",
    re.I,
)


# calls that only look: a read, a search, a command whose verb inspects (kubectl get, git status, ls, cat)
_LOOKS = frozenset(
    [
        "get",
        "describe",
        "status",
        "show",
        "list",
        "ls",
        "log",
        "logs",
        "cat",
        "head",
        "tail",
        "grep",
        "rg",
        "find",
        "diff",
        "inspect",
        "ps",
        "top",
        "df",
        "du",
        "which",
        "whoami",
        "version",
        "--version",
        "-v",
        "info",
        "stat",
        "file",
        "wc",
        "history",
    ]
)


_DRY_RUN = later(r"--dry-run\b|--check\b|--diff\b|--what-if\b|\bterraform\s+plan\b|\bplan\b\s*$|\s-n\s")


def observes(event: Event) -> bool:
    """A call that only looked: a read or a search, a tool asked to list or show, a command that inspects."""
    if event.name in ("read_file", "search_files", "view_image", "browser_snapshot", "session_search"):
        return True
    if event.name in ("browser_open", "browser_navigate", "web_fetch", "web_search"):
        return True  # opening or fetching a page submits nothing
    if str(event.args.get("action", "")).lower() in (
        "list",
        "get",
        "show",
        "read",
        "status",
        "view",
        "search",
    ):
        return True
    if event.command and _DRY_RUN.search(event.command):
        return True  # terraform plan, --dry-run, --check: it showed what would happen
    return inspects(event)


def inspects(event: Event) -> bool:
    """A call that read or listed and checked nothing: no dry run or --check among them (those verify)."""
    if event.name in ("read_file", "search_files", "view_image", "browser_snapshot", "session_search"):
        return True
    if event.command and _DRY_RUN.search(event.command):
        return False
    if not event.command:
        return False
    verbs = [
        m.group(2).lower() for m in _PROGRAM.finditer(event.command) if m.group(1) != "cd" and m.group(2)
    ]
    if verbs and all(v in _LOOKS for v in verbs):
        return True  # kubectl get ..., git status, docker ps: the verb after the program only looks
    return bool(programs(event)) and programs(event) <= (_LOOKS | _BASE_PROGRAMS)


_BASE_PROGRAMS = frozenset(
    [
        "kubectl",
        "git",
        "docker",
        "helm",
        "systemctl",
        "npm",
        "pip",
        "cargo",
        "go",
        "node",
        "python",
        "python3",
    ]
)


def executables(event: Event) -> set[str]:
    """The programs a command runs (npm in "npm ci", ruff in "cd x && ruff check .")."""
    return {m.group(1).lower() for m in _PROGRAM.finditer(event.command) if m.group(1) != "cd"}


def programs(event: Event) -> set[str]:
    """The words naming what a command ran: "cargo clippy -- -D warnings" gives cargo and clippy, "gh pr checks
    42" gh, pr and checks."""
    out: set[str] = set()
    for m in _PROGRAM.finditer(event.command):
        out |= {g.lower() for g in m.groups() if g and g != "cd"}
    return out


def naming(text: str, record: TurnRecord, prior: str | None = None) -> list[Event]:
    """The calls about what the clause names (its pronoun stands for `prior`, the claim before it)."""
    exact = specifics(text)
    said = text
    if prior and _PRONOUN.match(text):  # the pronoun's referent: a file, or the words of the claim before
        exact += [prior] if " " not in prior.strip() else specifics(prior)
        said = f"{text} {prior}"
    content = {w for w in _CONTENT.findall(BACKTICKED.sub(" ", said.lower())) if w not in STOPWORDS}
    stems = {stem(w) for w in content}
    tests = _TESTS.search(text) is not None or (prior is not None and "test" in prior.lower())
    out = []
    for e in record.events:
        hay = _haystack(e)
        named = any(same_path(p, x) for x in exact for p in e.paths()) or any(x in hay for x in exact)
        ran = {stem(x) for x in programs(e)}
        if named or content & _stems_of_paths(e) or stems & ran or (tests and e.is_test):
            out.append(e)
    return out
