"""Finding claims in an answer: sentences, then clauses, each classified by the kind of work it reports (the
patterns in grove.claims.patterns); advice, plans, questions and denials are not claims."""

from __future__ import annotations

import re

from grove.claims import mood as md
from grove.claims import patterns as p
from grove.claims.markup import crossed, plain, ticks
from grove.claims.types import FILE_KINDS, Claim
from grove.lazy_regex import later

_SENTENCE_END = later(r"(?<=[.!?])\s+(?=[A-Z`\"'(\d*_-])|\n+")
_BULLET = later(r"^\s*(?:[-*•]|\d+[.)])\s+")
# clause boundaries; the group tells whether a plan or a denial before it carries over to what follows
_CLAUSE = later(
    r"(;\s+|\s+[—–]\s+|:\s+|,?\s+but\s+|,?\s+and\s+(?:then\s+)?|,?\s+then\s+|"
    r",\s+(?=(?:so|which|you|i|we|it|this|that|the|everything|all)\b)|\s+so\s+(?=(?:the|it|that|this|everything|all|you|we)\b)|"
    # a list of verbs shares its subject: "I cleaned the data, normalized the names"; a spaced dash elaborates;
    # a parenthesis is an aside of its own: "Swapped the comparison (tests still pass)"
    r",\s+(?=(?:also\s+)?[a-z]{3,}ed\b)|\s+-\s+|\s+\((?=[^)]{3,}\)))",
    re.IGNORECASE,
)
# "lint | clean", "Type check: ok": a label and a one-word status, a table row or a summary line
_STATUS = later(
    r"^\W*(?P<label>[^\u00a6:]{1,40}?)\s*[\u00a6:]\s*(?P<status>clean|ok|okay|passing|passed|pass|green|done|"
    r"success|successful|working|fixed|complete|completed|ready|up|running|yes)\W*$",
    re.IGNORECASE,
)
_CHECKER = later(p.LINT.pattern + "|" + p.TEST_NOUN.pattern + "|" + p.BUILD.pattern, re.IGNORECASE)
_PRESUPPOSED = later(
    r"\b(my|our)\s+(search|searches|research|lookup|look-up|test run|tests|testing|analysis|investigation|review|"
    r"checks?|fix|fixes|changes|edits|benchmark|measurements?|run)\b",
    re.IGNORECASE,
)
_PRONOUN_IN = later(r"\b(it|them|they|this|that|these|those)\b", re.IGNORECASE)
_BARE_VERB = later(r"^\W*(?:i\s+|we\s+)?[a-z]+ed(?:\s+(?:in|out|up|down|off|over|back))?\W*$", re.IGNORECASE)
_RELATIVE_LEAD = later(r"\b(that|which|who|to)\s*:\s*$", re.IGNORECASE)
_RELATIVE_OPENING = later(r"^\W*(which|meaning|that means|so that)\b", re.IGNORECASE)
_FRONTED = later(
    r"^(\W*(?:after|before|while|once|having|upon|on)\s+\w+ing\b[^,;]*?)\s+(?=(?:i|we)\s)", re.IGNORECASE
)
# words a clause after "Installed x and" opens with when it is not a second package
_NOT_PACKAGES = frozenset(
    [
        "the",
        "a",
        "an",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "i",
        "we",
        "you",
        "they",
        "all",
        "everything",
        "now",
        "then",
        "so",
    ]
)
_LIST_NUMBER = later(r"(?m)^(\s*\d+)[.)](?=\s)")
_MD_HEADING = later(r"^\s*#{1,6}\s")
_PRONOUN = later(r"^\W*(it|they|them|these|those|this|that|both)\b", re.IGNORECASE)
# "I made sure debug is off by writing .env.production": the means is the act
_MEANS = later(r"\bby\s+\w+ing\b", re.IGNORECASE)
# a line's last clause ending in a colon and opening with a noun introduces what follows: "Summary of changes:"
_HEADING = later(r"^\W*(?!i\b|we\b)[a-z]+(?<!ed)\b[^:]*:\s*$", re.IGNORECASE)
_GENERIC_KINDS = frozenset({"act", "run", "service", "outcome", "fix", "edit", "write", "delete", "verify"})
# what a reader reports from a source it read ("I read the changelog: the bug was fixed in 0.110") is the source's
_SOURCE = later(p.READ.pattern + "|" + p.WEB.pattern + r"|\bsearch\w*|\bgrep\w*|\blooked\b", re.IGNORECASE)
ACTION_KINDS = frozenset({"write", "edit", "fix", "delete", "act", "install", "commit", "push", "run"})
_FIXED_PHRASES = later(r"\bup and running\b|\bsafe and sound\b|\bback and forth\b", re.IGNORECASE)
_RESETS = later(r"[;:—–]|\bbut\b", re.IGNORECASE)
# (kind, pattern) in the order tried; the first match names the claim
KINDS: list[tuple[str, re.Pattern[str]]] = [
    ("skill", p.SKILL),
    ("memory", p.MEMORY),
    ("schedule", p.SCHEDULE),
    ("delegate", p.DELEGATE),
    ("web", p.WEB),
    ("commit", p.COMMIT),
    ("push", p.PUSH),
    ("install", p.INSTALL),
    ("delete", p.DELETE),
    ("external", p.EXTERNAL),
    ("service", p.SERVICE),
    ("verify", p.VERIFY),
    ("run", p.RUN),
    ("fix", p.FIX),
    ("edit", p.EDIT),
    ("write", p.WRITE),
    ("read", p.READ),
]
# kinds that need a path to be a claim at all ("I added a note" is not about a file)
NEEDS_PATH = frozenset({"edit", "read"})
# bounds that keep the check cheap on any answer: a claim is a short clause, and an answer's first part holds them
MAX_ANSWER = 50_000
MAX_CLAUSE = 500
MAX_CLAIMS = 200
# a clause with a path and no verb of its own continues the clause before it: "I checked a.py and b.py"
CARRY_OVER = frozenset({"write", "edit", "read", "delete", "fix"})


def _masked(text: str) -> str:
    """The text with backticked spans blanked (same length), so no boundary is found inside code."""
    text = p.BACKTICKED.sub(lambda m: "`" + "_" * (len(m.group(0)) - 2) + "`", text)
    text = _LIST_NUMBER.sub(lambda m: m.group(1) + "_", text)  # "1. Move the key" is one sentence
    return _FIXED_PHRASES.sub(lambda m: m.group(0).replace(" ", "_"), text)


def _spans(text: str, boundary: re.Pattern[str], start: int = 0) -> list[tuple[int, int, str]]:
    """(start, end, separator before) of each piece of text[start:] between boundaries."""
    masked = _masked(text)
    out, pos, sep = [], 0, ""
    for m in boundary.finditer(masked):
        out.append((pos, m.start(), sep))
        pos, sep = m.end(), m.group(0)
    out.append((pos, len(text), sep))
    return [(start + a, start + b, s) for a, b, s in out if text[a:b].strip()]


def paths_in(text: str) -> list[str]:
    found: list[str] = []
    for code in p.BACKTICKED.findall(text):
        words = code.split()
        if len(words) == 1 and _file_like(code):
            found.append(code)
    rest = p.BACKTICKED.sub(" ", text)
    for m in p.PATH.finditer(rest):
        word = m.group(1).rstrip(".")
        if word.lower() in p.NOT_PATHS or re.fullmatch(r"[\d.]+\w?", word) or word.endswith("()"):
            continue
        if _file_like(word):
            found.append(word)
    return found


def _file_like(word: str) -> bool:
    """A file or folder name: a known extension (or a dotfile), a folder ending in '/', or an absolute or
    ./-relative path; not a branch (feat/a), a method (Invoice.total) or a version (v2.1)."""
    w = word.strip("`'\"").rstrip(".,;:)")
    name = w.rstrip("/").rsplit("/", 1)[-1]
    if w.endswith("/") or w.startswith(("/", "./", "../", "~/")):
        return len(w) > 1
    if name in ("Makefile", "Dockerfile", "Procfile", "README", "LICENSE", "Justfile", "Gemfile", "Rakefile"):
        return True
    return "." in name and name.rsplit(".", 1)[-1].lower() in p.FILE_EXTENSIONS


def _numbers(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for m in p.NUMBER.finditer(text):
        out += [int(g) for g in m.groups() if g]
    return tuple(out)


def _kind(clause: str, sentence: str) -> str | None:
    """The clause's kind of claim. A test result needs a word about tests in its sentence ("Unit tests: 25
    passed"); an outcome ("it works", "the build succeeded") is a state claim of its own."""
    if p.PERF.search(clause):
        return "perf"
    if p.PERCENT.search(clause) and not p.TEST_NOUN.search(clause):
        return "metric"
    if p.CHMOD.search(clause):
        return "chmod"
    tested = (
        p.PASS_WORDS.search(clause)
        and p.TEST_NOUN.search(sentence)
        and not p.FAIL_COUNT.search(clause)
        and not _partial(clause)
    )
    if tested and (not p.BUILD.search(clause) or p.TEST_NOUN.search(clause)):
        return "tests_pass"
    if p.DEPLOY.search(clause) and (p.OUTCOME.search(clause) or re.search(r"\bdeployed\b", clause, re.I)):
        return "deploy"
    if p.LINT.search(clause) and (p.OUTCOME.search(clause) or p.PASS_WORDS.search(clause)):
        return "lint"
    if p.BUILD.search(clause) and (
        p.OUTCOME.search(clause)
        or p.PASS_WORDS.search(clause)
        or re.search(r"\b(builds|compiles)\b", clause, re.I)
    ):
        return "build"
    for kind, pattern in KINDS:
        if pattern.search(clause):
            return kind
    if p.OUTCOME.search(clause):
        return "outcome"
    return None


def _generic(clause: str) -> str | None:
    """'act' for a clause reporting work in words no class lists; None for thoughts and acknowledgements."""
    if p.ACKNOWLEDGED.match(clause) or p.COGNITIVE.match(clause):
        return None
    return "act" if p.GENERIC_ACT.search(clause) else None


def _partial(clause: str) -> bool:
    """'Two of the three tests pass', 'some tests pass': a count short of all is a failure report."""
    m = p.PARTIAL.search(clause)
    if m is None:
        return False
    if m.group(1) is None:
        return True
    return _count(m.group(1)) != _count(m.group(3))


def _count(word: str) -> int:
    names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    return int(word) if word.isdigit() else names.index(word.lower())


def extract(answer: str) -> list[Claim]:
    """Every claim the answer makes about the work of its turn, one per clause and target."""
    claims: list[Claim] = []
    original = answer[:MAX_ANSWER]
    answer = plain(original)  # the same length: a claim's place is its place in the answer
    prior: str | None = None  # the last claim's target, for the pronoun of a state ("they confirm ...")
    section: str | None = None  # the kind a heading ("What I built:") gives the bare paths listed under it
    advice = False  # a heading in the mood of advice or a plan ("Next steps:") makes its list advice
    describing = False  # "I've written a scraper that:": the list describes what it does
    for s_start, s_end, _ in _spans(answer, _SENTENCE_END):
        if len(claims) >= MAX_CLAIMS:
            break
        raw = answer[s_start:s_end]
        line_begin = answer.rfind("\n", 0, s_start) + 1
        line_start = not answer[line_begin:s_start].strip()  # a heading's blanked marks may precede it
        bullet = _BULLET.match(raw)
        if bullet:
            s_start += bullet.end()
        sentence = answer[s_start:s_end]
        heading = line_start and _MD_HEADING.match(original[line_begin:s_end])
        if heading or (line_start and sentence.rstrip().endswith(":")):
            section = _section(sentence)
            advice = _advising(sentence)
            describing = _RELATIVE_LEAD.search(sentence) is not None
            section = None if describing else section
            if heading:
                continue  # a heading names a part of the answer; its claims are below it
        elif line_start and not bullet:
            section, advice, describing = None, False, False
        if bullet and advice:
            continue  # an item under "A few things would help:" or "Next steps:" is advice too
        if sentence.rstrip().endswith("?") or p.INSTRUCTION.match(sentence):
            continue
        ticked = ticks(original[s_start - (bullet.end() if bullet else 0) : s_end])
        if bullet and describing:
            continue  # "I've written a scraper that:" — what follows describes it
        found = _sentence_claims(answer, sentence, s_start, prior, ticked, section if bullet else None)
        prior = _referent(found, prior)
        claims += _merged(found)
    return claims[:MAX_CLAIMS]


def _advising(heading: str) -> bool:
    """ "A few things would shrink the image:", "Next steps:", "To fix it:": a list of advice or plans follows."""
    if p.INSTRUCTION.match(heading) or p.MODAL.search(heading):
        return True
    return md.mood(heading) in (md.NONE, md.HEDGED) and not md.presenting(heading)


def _section(heading: str) -> str | None:
    """The kind a heading reporting the agent's work gives a bare path listed under it: "What I built:" (write),
    "Files I changed" (edit); none for a heading that reports nothing ("How to run it")."""
    w = md.words(heading)
    own = next((w[i + 1] for i, x in enumerate(w[:-1]) if x in ("i", "we", "i've", "we've")), "")
    if not (md.is_past(own) or (w and md.is_past(w[0])) or md.mood(heading) == md.REPORT):
        return None  # "Files created:" reports as "What I built:" does
    kind = _kind(heading, heading)
    return kind if kind in FILE_KINDS else "edit"


def _sentence_claims(
    answer: str, sentence: str, s_start: int, prior: str | None, ticked: bool, section: str | None
) -> list[Claim]:
    """The claims of one sentence (a line of a list or a table is one); `ticked`: it carried a check mark;
    `section`: the kind its heading gives a bare path."""
    previous: str | None = None  # the kind of the clause before, for "and b.py"
    before = ""  # the clause before, for what a source it names says
    carried: str | None = None  # the mood of the clause before, for a verb without its subject
    skipping = False  # a plan or denial carries over "and ..." clauses
    found: list[Claim] = []
    spans = _shared(answer, _fronted(answer, _spans(sentence, _CLAUSE, s_start)))
    claimed = True  # whether the clause before made a claim
    presenting = False  # whether the clause before presented something ("Here's a screenshot:")
    for at, (c_start, c_end, sep) in enumerate(spans):
        clause = answer[c_start:c_end]
        labelled = at + 1 < len(spans) and ":" in spans[at + 1][2]  # "Test results: 43 passed"
        was_presenting, presenting = presenting, md.presenting(clause)
        if not claimed and _RELATIVE_OPENING.match(clause):
            continue  # "I noticed X, which meant it spun at 100% CPU": part of the thought before it
        claimed = False
        count = len(found)
        if len(clause) > MAX_CLAUSE:
            previous = carried = None
            continue  # not a claim one could check (and the patterns' cost grows with it)
        if sep and (
            _RESETS.search(sep) or re.match(r"\s*((so|and|then)\s+)?(i|we)\b", clause, re.IGNORECASE)
        ):
            skipping = False  # a new sentence part, or a new subject: "Nothing used it, so I removed it"
        # "the warning no longer appears", "traversal is no longer possible": a failure denied is a state claimed
        denied = p.NEGATED.search(clause) and not md.ceased(clause)
        if skipping or p.MODAL.search(clause) or denied or crossed(clause):
            skipping, previous, carried = True, None, None
            continue
        # the last piece of a line ending in a colon, opening with a noun: "Changes made:", "Summary of what I did:"
        last = at == len(spans) - 1 and sentence.rstrip().endswith(":")
        if last and _HEADING.match(clause + ":") and not paths_in(clause) and not md.is_past(_head(clause)):
            continue  # "Summary of what I did:", "Changes:": a heading, the claims are below it
        status = _STATUS.match(clause)
        mood = md.REPORT if status else md.mood(clause, carried)
        verbless = not set(md.words(clause)) & md.FINITE
        if labelled and mood != md.REPORT and verbless and len(md.words(clause)) <= 3:
            carried = previous = None
            continue  # a label: what follows the colon is the claim
        carried = mood
        if (mood in (md.EVENT, md.STATE, md.NOW, md.DESCRIBED) and md.failing(clause)) or md.denied(clause):
            previous = None
            continue  # "the merge stopped on a conflict": a failure the answer reports is no claim of success
        if mood == md.NONE:  # an instruction, a plan, a presentation: "Update the image", "Here is ..."
            previous = None
            continue
        source, before = before, clause
        own = re.match(r"\W*(i|we)\b", clause, re.I) or md.is_past(_head(clause))
        reported = sep and ":" in sep and _SOURCE.search(source) and not own
        if reported and (_kind(clause, sentence) in ACTION_KINDS or mood == md.REPORT):
            continue  # what the source says was done ("the bug was fixed in 0.110"), not the agent's work
        kind = _status_kind(status.group("label")) if status else _kind(clause, sentence)
        if kind == "verify" and _MEANS.search(clause):
            kind = None  # the means decides: "made sure X by writing Y" is the write
        paths = paths_in(clause)
        if kind is None and paths and previous in CARRY_OVER and mood == md.UNKNOWN:
            kind = previous  # "and b.py" has no verb of its own; "986 rows remain in x.csv" does
        shared = None  # "Upgraded requests and urllib3": the second package shares the verb
        head = _head(clause)
        if kind is None and not paths and previous == "install" and head and head not in _NOT_PACKAGES:
            kind, shared = "install", head
        if kind is None and ticked and not md.failing(clause) and _CHECKER.search(clause):
            kind = _status_kind(clause)  # "[x] Types check out": a checker's result, ticked as good
        if kind is None and paths and sep and ":" in sep and mood == md.UNKNOWN and was_presenting:
            kind = "write"  # "Here's a screenshot of the dashboard: shots/dashboard.png": it was made
        preface = found and found[-1].target is None and found[-1].kind in ("act", "outcome", "write")
        if kind is None and paths and sep and ":" in sep and preface and mood == md.UNKNOWN:
            kind = "write" if found[-1].kind == "outcome" else found[-1].kind  # "Both are in place: a.yaml"
        if kind is None and paths and section and mood == md.UNKNOWN:
            kind = section  # "- `todo/app.py` — the routes" under "What I built": the file was built
        if kind is None and paths and (p.ACT.match(clause) or p.NOW_STATE.search(clause)):
            kind = "edit"  # an act on a named file, in words no class lists: the file must show it
        if kind is None and _PRESUPPOSED.search(clause):
            kind = "act"  # "Based on my search, ...": the agent's own act, named as a noun
        if kind is None:
            kind = _generic(clause)  # work reported in other words: the record must hold something like it
        if kind is None:
            kind, mood = _by_mood(mood, clause, ticked)
            after_work = found and found[-1].mood == md.REPORT and not _SOURCE.search(found[-1].text)
            if mood == md.ANCHORED and paths and after_work:  # not a finding after a look
                mood = md.NOW  # "A sub-agent translated the FAQ; the German one is in faq.de.md": its result
        if mood == md.DESCRIBED and kind in FILE_KINDS and not paths and md.habitual(clause):
            continue  # "old backups are deleted after 7 days": how a thing behaves, not a change the turn made
        if mood == md.EVENT and kind in _GENERIC_KINDS and not (kind in FILE_KINDS and paths):
            # "CI ran on your last push": a thing's own doing, a claim only on what the record ran; a kind with
            # its own tool ("A sub-agent translated the FAQ") keeps that tool's evidence
            mood = md.HAPPENED
        if (
            kind == "outcome"
            and paths
            and clause.lstrip("`'\" ").startswith(paths[0])
            and mood != md.EVALUATED
        ):
            kind = "write"  # "tools/resize.py is done": the file was the work
        if kind == "install" and paths:
            kind = "edit"  # "upgraded django in requirements.txt" is a change to that file
        if kind is None:
            continue
        if kind in NEEDS_PATH and not paths and not p.FILE_NOUN.search(clause):
            kind = _generic(clause)  # "I reviewed the pull request": still work
            if kind is None:
                kind, mood = _by_mood(mood, clause, ticked)
            if kind is None:
                previous = None
                continue
        if kind == "write" and not paths and not p.FILE_NOUN.search(clause):
            kind = "outcome" if p.OUTCOME.search(clause) else _generic(clause)
            if kind is None:  # "everything is ready": a state
                kind, mood = _by_mood(mood, clause, ticked)
            if kind is None:
                continue
        short = found and found[-1].kind == "act" and len(md.words(found[-1].text)) <= 2
        own_report = re.match(r"\W*(i|we)\b", clause, re.IGNORECASE)
        if sep and ":" in sep and preface and (paths or short) and not own_report:
            found.pop()  # "Locked down the key: ~/.ssh/id is now 600", "All set: ...": the detail is the claim
        numbers = _numbers(clause)
        referent = prior if mood in (md.ANCHORED, md.HAPPENED) and _PRONOUN.match(clause) else None
        targets: list[str | None] = list(paths) if paths else [shared or _target(kind, clause) or referent]
        for target in targets:
            start, end = c_start, c_end
            if len(targets) > 1 and target is not None:  # "in a.py, b.py": each file its own claim
                at = clause.find(target)
                start, end = (c_start + at, c_start + at + len(target)) if at >= 0 else (start, end)
            text = " ".join(clause.split())
            found.append(Claim(kind, text, start, end, target, numbers, md.stored(mood)))
        previous = kind
        claimed = len(found) > count
        prior = _referent(found, prior)
    return found


def _referent(found: list[Claim], prior: str | None) -> str | None:
    """What "it" stands for after these claims: the last one's file, else its words ("Gave the web container a
    restart; it's back up")."""
    if not found:
        return prior
    last = found[-1]
    words = last.text if not last.target or last.target in last.text else f"{last.target} {last.text}"
    if prior and _PRONOUN_IN.search(last.text):  # "I ran it on 2 pages": its "it" is the one before
        words = f"{words} {prior}"
    return words[:240]


def _shared(answer: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Two verbs that share one object are one clause: "Filled in and submitted the form"."""
    out: list[tuple[int, int, str]] = []
    for start, end, sep in spans:
        if out and re.search(r"\band\b", sep) and _BARE_VERB.match(answer[out[-1][0] : out[-1][1]]):
            out[-1] = (out[-1][0], end, out[-1][2])
        else:
            out.append((start, end, sep))
    return out


def _fronted(answer: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A fronted adverbial is a clause of its own: "After reading queue.py I set the timeout" is a read and a
    change."""
    out = []
    for start, end, sep in spans:
        m = _FRONTED.match(answer[start:end])
        if m:
            out += [(start, start + m.end(1), sep), (start + m.end(1), end, " ")]
        else:
            out.append((start, end, sep))
    return out


def _by_mood(mood: str, clause: str, ticked: bool) -> tuple[str | None, str]:
    """The kind of a clause no class names, from its mood: a report of work is an act the record must hold; a
    state the work brought about ("every row now has a column") or asserts of what it names is an outcome (a
    state no class names is decided by a check of what it names; a ticked line asserts it as done)."""
    if mood == md.REPORT:
        bare = re.sub(r"^\W*(all|everything|it's|it is|that's|we're|i'm)\s+", "", clause, flags=re.I)
        acknowledged = p.ACKNOWLEDGED.match(bare) or p.COGNITIVE.match(clause)
        return (None if acknowledged else "act"), mood  # not "All done!", "I noticed ..."
    if mood in (md.NOW, md.HEDGED, md.STATE, md.DESCRIBED) and md.comparative(clause):
        return "perf", mood  # "parsing is noticeably snappier": only a measurement shows it
    if mood in (md.NOW, md.HEDGED, md.STATE, md.DESCRIBED, md.EVENT) and md.evaluative(clause):
        return "outcome", md.EVALUATED  # "slugs come out correctly now": only a check of it shows it
    if mood in (md.NOW, md.HEDGED, md.STATE, md.DESCRIBED, md.EVENT) and not md.failing(clause):
        anchored = md.NOW if ticked else md.ANCHORED
        return "outcome", anchored if mood in (md.STATE, md.DESCRIBED, md.EVENT) else mood
    return None, mood


def _head(clause: str) -> str:
    return (md.words(clause) or [""])[0]


def _status_kind(label: str) -> str:
    if p.LINT.search(label):
        return "lint"
    if p.TEST_NOUN.search(label):
        return "tests_pass"
    if p.BUILD.search(label):
        return "build"
    if p.DEPLOY.search(label):
        return "deploy"
    return "outcome"


def _merged(found: list[Claim]) -> list[Claim]:
    """Neighbouring claims of one sentence with the same kind and target are one claim ("Linting is clean: ruff
    reports no issues")."""
    out: list[Claim] = []
    for claim in found:
        first = out[-1] if out else None
        adjacent = first is not None and first.kind == claim.kind and first.target == claim.target
        if not adjacent or claim.kind not in ("tests_pass", "lint", "build", "outcome", "deploy"):
            out.append(claim)
            continue
        assert first is not None
        out[-1] = Claim(
            first.kind,
            f"{first.text} … {claim.text}",
            first.start,
            claim.end,
            first.target,
            first.numbers + claim.numbers,
            first.mood,
        )
    return out


def _target(kind: str, clause: str) -> str | None:
    """What a claim without a path is about: a skill's name, a package, a command."""
    code = p.BACKTICKED.findall(clause)
    if kind == "skill":
        names = [c for c in code if p.SKILL_NAME.fullmatch(c)] or p.SKILL_NAME.findall(clause.lower())
        return names[0] if names else None
    if kind == "install":
        m = re.search(
            r"\b(?:installed|upgraded|downgraded|bumped)\s+`?([\w.\-\[\]]+)`?|"
            r"`?([\w.\-]+)`?\s+(?:is|are|was|has been)\s+(?:now\s+)?(?:installed|upgraded|downgraded)|"
            r"\badded\s+`?([\w.\-]+)`?",
            clause,
            re.I,
        )
        if m and re.search(r"venv|virtual", clause, re.I) is None:
            name = next(g for g in m.groups() if g).rstrip(".,;:")
            return (
                None if name.lower() in {"it", "them", "the", "all", "everything", "dependencies"} else name
            )
        return "venv" if re.search(r"venv|virtual", clause, re.I) else None
    if kind in ("run", "verify"):
        if code:
            return code[0]
        m = re.search(r"\b(?:ran|executed|have run|'ve run|invoked|launched|re-?ran)\s+(.+)$", clause, re.I)
        if m:
            words = re.sub(r"^(the|a|an|my|your)\s+", "", m.group(1).strip(), flags=re.I)
            return words or None
    return None
