"""A clause's grammatical mood, read from its verb forms rather than from lists of phrasings: a report of work
done (past, perfect, passive), a state it asserts now, a description of what simply is, a hedge, or no claim."""

from __future__ import annotations

import re

from grove.lazy_regex import later


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


REPORT = "report"  # "Rebuilt the index", "I've split it", "the db has been seeded", "Database seeded"
STATE = "state"  # "the sample validates", "they confirm it is correct": true or false by a check of the work
NOW = "now"  # "every row now has a column": a state the turn's work brought about
DESCRIBED = "described"  # "retries are handled in net/client.go": what is, not what the turn did
HEDGED = "hedged"  # "the timeouts should stop now": a state nothing checked
ANCHORED = "anchored"  # a STATE no class of claim names: a check of what the clause names must decide it
UNKNOWN = "unknown"  # no verb to read ("three tests for it"): only a class of claim makes it one
EVENT = "event"  # "the merge stopped on a conflict": what befell a thing, a report unless it is a failure
EVALUATED = "evaluated"  # "comes out correctly", "is compatible", "no longer appears": a check must show it
HAPPENED = "happened"  # an EVENT as stored: what a thing (a script, CI, "it") did, shown only by a run of it
NONE = "none"  # imperative, future, modal, a question, advice to the reader, a presentation ("Here is ...")

# English irregular past forms (a closed class of the language, not phrasings); the ones equal to their base form
# read as a report only where a report's subject carries over ("I refactored it and split it")
IRREGULAR_PAST = _set(
    "had built rebuilt wrote rewrote written rewritten ran reran rerun made remade did redid undid done "
    "redone undone took taken gave given sent resent left brought kept drew drawn threw thrown "
    "shrank shrunk spun bound rebound got gotten began begun broke broken chose chosen froze frozen "
    "hid hidden laid paid sold told tore torn wound fed fought hung held led lit lost met rode "
    "shook shot shown sped spent stood swept swung taught withdrew withdrawn overrode overridden "
    "overwrote overwritten struck stuck dug sunk woke split put set reset cut shut hit let fit quit "
    "spread upset cast rid shed read reread"
)
SAME_AS_BASE = _set("split put set reset cut shut hit let fit quit spread upset cast rid shed read reread")
# base forms that open an instruction to the reader ("Update the image", "Run make"); for the imperative test only
IMPERATIVE = _set(
    "add update run use change create write install rebuild build remove delete fix check make try "
    "restart open edit replace rename move enable disable configure ensure keep bump pin upgrade "
    "commit push deploy test verify review look go start stop call export import include wrap rerun "
    "reinstall uninstall clone pull merge rebase revert drop clear copy paste save apply launch "
    "pass note"
)
_CODE = later(r"`[^`]*`")
_CONTRACTED = later(r"\b(it|that|there|here|what|who|everything|they|you|we|he|she)'(s|re)\b")
# a path, a version or a dotted name is one word and never a verb: "api/resolvers.ts" has no "resolvers"
_WORD = later(r"[\w~-]*[/.][\w./:-]*\w|[a-z][a-z0-9'’-]*|'[a-z]+|\d[\w.:/-]*")
_FILLERS = _set(
    "so and but yet also then just now already finally first both all everything simply quickly fully"
)
_MODALS = _set(
    "will 'll would could can might may must shall won't wouldn't i'll we'll it'll you'll they'll that'll"
)
_BE_PRESENT = _set("is are 's 're am")
_BE_PAST = _set("was were")
_HAVE = _set("has have had 've")
# words that open an imperative's object ("Update the image", "Run it")
_OBJECT_OPENERS = _set(
    "the a an this that these those your my our its their it them all everything up out some any"
)
_PRONOUNS = _set("it they he she this that these those ci everything nothing something")
# past forms that are never participles: "CI ran", never "CI [was] ran"
PAST_ONLY = _set(
    "ran reran wrote rewrote overwrote did redid undid went took gave drew threw rode rose shook broke chose froze "
    "spoke began sank shrank sang swam woke tore wore withdrew overrode"
)
_GET = _set("get gets got getting become becomes became")
_PREPOSITIONS = _set("to in into on onto at with for from by via under as over through without")
FINITE = _set("is are was were am has have had do does did will would can could should may might must 's 're")
_AUX = _set("is are was were has have had will would should can could")
_PLURAL = _set("they these those both")
_SUBJECT_SELF = _set("i we i've we've i'd we'd")
_PRESENTING = later(r"^\W*(here(?:'s| is| are)|below (?:is|are)|attached|the following)\b", re.I)
_NOW = later(r"\b(now|anymore|any more|again|from now on|no longer)\b", re.I)
# a failure it reports is honest, not a claim of work done: "3 tests fail", "the build fails with E0425"
_FAILING = later(
    r"(?i:(?<!\bno )(?<!\bwithout )(?<!\bwithout any )(?<!\bzero )(?<!\b0 )\b(fail|fails|failing|errors?|crash(es|ing)?|"
    r"failures?|failed|broken|breaks|missing|hangs?|times out|timed out|raises|throws|conflicts?|aborted|refused|rejected|denied)\b)|"
    r"\w(Error|Exception)\b|(?i:\b(one|two|three|four|five|six|seven|eight|nine|\d+) of (the )?\w+\b)|"
    r"(?i:\b(some|most|several|half)( of)? (the )?(tests?|specs?|checks?)\b)|"
    r"(?i:\bexit(?:ed)?\s+(?:with\s+)?(?:code|status)?\s*[1-9]\d*\b|\bnon-?zero\b)|"
    r"(?i:\b[1-9]\d*\s+(?:\w+\s+)?(issues|warnings|errors|problems|violations|vulnerabilities)\b)"
)
# words before a noun, never before a verb: "three tests for it", "the tests"
_DETERMINERS = _set(
    "the a an my your its their our this that these those some any no all every each both new old unit "
    "two three four five several many"
)
_RELATIVE = _set("what which that who whatever where because since when how")
# the reader as the one who acts: advice, or a state that waits on them ("starts on whatever port you set")
# what the reader now has or is ("You now have a git repo", "You're on branch fix/login"): a state, not advice
_READER_STATE = later(r"^\W*you(?:'re|\s+are|\s+now\s+have|\s+have\s+now|\s+now\s+get|\s+now\s+see)\b", re.I)
_READER = later(
    r"^\W*(?:\w+\W+){0,2}?(you|please)\b|\byourself\b|\b(whatever|if|when|once|unless|until)\b[^,.;]*\byou\b",
    re.I,
)


def words(clause: str) -> list[str]:
    """The clause's words, code spans left out: `systemctl enable --now app` holds no "now" of the clause."""
    text = _CODE.sub(" ", clause).lower().replace("’", "'")
    return _WORD.findall(_CONTRACTED.sub(r"\1 '\2", text))  # "it's" is "it 's": a subject and its verb


def is_past(word: str) -> bool:
    """A past form or past participle: regular (-ed) or irregular."""
    if "/" in word or "." in word:
        return False
    return (
        len(word) > 3 and word.endswith("ed") and word not in ("need", "feed", "seed", "speed", "bed")
    ) or (word in IRREGULAR_PAST)


def is_present_third(word: str) -> bool:
    """A present-tense verb after a subject: "validates", "returns", "reads" (not "is", not a plural noun)."""
    if "/" in word or "." in word:
        return False
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "'s"))


def mood(clause: str, carried: str | None = None) -> str:
    """The clause's mood; `carried` is the mood of the clause before it in the same sentence, which a clause
    without a subject of its own shares ("I cleaned the data, normalized the names and wrote clean.csv")."""
    if _PRESENTING.match(clause):
        return NONE
    clause = _CODE.sub(" ", clause)
    w = [x for x in words(clause) if x not in _FILLERS and not (x.endswith("ly") and len(x) > 4)]
    if not w:
        return UNKNOWN  # a bare name: "`todo/app.py`"
    if _READER.search(clause) and not _READER_STATE.match(clause):
        return NONE
    head = w[0]
    if head in _SUBJECT_SELF:
        # "I've split it": have is the auxiliary; "I had a sub-agent review it": have is the verb
        aux = len(w) > 2 and w[1] in _HAVE and is_past(w[2])
        rest = w[2:] if aux else [("had" if x in _HAVE else x) for x in w[1:]]
        return REPORT if rest and is_past(rest[0]) and not head.endswith("'d") else NONE  # not "I'd suggest"
    if head in _MODALS or head in ("next", "to", "if", "when", "once", "should", "let's", "lets"):
        return NONE
    if head in ("had", "were") and "been" in w[2:6]:
        return NONE  # "Had the fixture been scoped per module, ...": a counterfactual
    if is_past(head):
        if head in SAME_AS_BASE and carried != REPORT:
            return NONE if head in IMPERATIVE else REPORT
        return carried if carried == DESCRIBED else REPORT
    opens_object = len(w) == 1 or w[1] in _OBJECT_OPENERS or "/" in w[1] or "." in w[1]
    if head in IMPERATIVE and (opens_object or carried == NONE):  # "... and build again" shares the mood
        return NONE  # "Update the image", "Run it"; not "Build succeeded", "Build successful" (a subject)
    return _predicate(w, clause)


def _predicate(w: list[str], clause: str) -> str:
    """The mood of a clause with a subject of its own: the first verb form after it decides."""
    skip = 0
    for i, x in enumerate(w[:12]):
        after = w[i + 1 : i + 4]
        if skip:  # inside "what I did", "because it returns": not the clause's own verb
            skip -= 1
            continue
        if i > 0 and x in _RELATIVE:
            skip = 2
            continue
        if x in ("can", "could") and _NOW.search(clause):
            return NOW  # "the app can connect again": an ability the work restored
        if x in _MODALS:
            return NONE
        if x in ("should", "ought", "shouldn't"):
            return HEDGED
        if x in _HAVE and after and after[0] == "been":
            return REPORT  # "the port has been changed"
        if i > 0 and x in ("has", "have") and not (after and is_past(after[0])):
            return NOW if _NOW.search(clause) else STATE  # "Clippy has no complaints"
        if x in _BE_PAST and after and (is_past(after[0]) or after[0] == "successfully"):
            return REPORT  # "the report was generated"
        if x in _BE_PRESENT:
            if _NOW.search(clause):
                return NOW
            nxt = [y for y in after if y not in ("all", "also", "already", "fully", "correctly")]
            if nxt and is_past(nxt[0]):
                return DESCRIBED  # "is implemented as", "are handled in"
            return STATE
        if i > 0 and is_past(x):
            if _NOW.search(clause):
                return NOW
            if w[i - 1] in _GET:
                return STATE  # "updates get lost under load": what happens, not what was done
            bare = w[0] not in _DETERMINERS | _PRONOUNS and x not in PAST_ONLY
            if not after or (bare and (after[0] in _PREPOSITIONS or after[0].endswith("ly"))):
                return REPORT  # headline passives: "Database seeded", "Message sent to #ops" (no object)
            return EVENT  # "the merge stopped on a conflict", "CI ran on your last push": a thing's own doing
        if i == 1 and w[0] in _PLURAL and x not in _HAVE:
            return NOW if _NOW.search(clause) else STATE  # "they confirm the rounding is correct"
        if i > 0 and _plural_verb(w[i - 1], x, after):
            return NOW if _NOW.search(clause) else STATE  # "986 rows remain in contacts.csv", "tests pass"
        noun = w[i - 1] in _DETERMINERS or w[i - 1].isdigit() or (after and after[0] in _AUX)
        if i > 0 and not noun and (is_present_third(x) or x.endswith("ing")):
            return NOW if _NOW.search(clause) else STATE  # "the sample validates", not "three tests for it"
    return NOW if _NOW.search(clause) else UNKNOWN


def failing(clause: str) -> bool:
    return _FAILING.search(clause) is not None


# an act that did not happen, in the passive ("It was denied.", "the push got rejected"): a report of the failure
_DENIED = later(
    r"\b(?:was|were|got|gets|is|are|has\s+been|have\s+been)\s+(?:\w+\s+)?"
    r"(?:denied|refused|rejected|blocked|declined|disallowed|forbidden|not\s+allowed|aborted|cancell?ed)\b",
    re.IGNORECASE,
)


def denied(clause: str) -> bool:
    return _DENIED.search(clause) is not None


def stored(mood: str) -> str:
    """The mood a Claim keeps: the ones that change how the record decides it; any other is a plain report."""
    return mood if mood in (ANCHORED, DESCRIBED, NOW, HEDGED, STATE, EVALUATED, HAPPENED) else REPORT


_COMPARATIVE = later(
    r"\b(is|are|feels|looks|runs|seems|got|became)\s+(?:\w+ly\s+)?(\w{3,}ier|\w{3,}er|more\s+\w+|less\s+\w+)\b"
    r"(?!\s+(than|of)\b)",
    re.I,
)


def comparative(clause: str) -> bool:
    """A change stated as a comparison: "parsing is noticeably snappier", "the page feels lighter"."""
    m = _COMPARATIVE.search(clause)
    return m is not None and m.group(2).lower() not in ("never", "other", "over", "under", "after", "ever")


_PASSIVE_PAST = later(
    r"^\W*(?!i\b|we\b)[\w`'./-]+(?:\s+[\w`'./-]+){0,4}?\s+(was|were)\s+(?:\w+ly\s+)?\w+(ed|en|wn|lt|ne)\b",
    re.I,
)


def passive_past(clause: str) -> bool:
    """'retry_count was introduced in a1b2c3d': a simple-past passive, which names no one who did it."""
    return _PASSIVE_PAST.match(clause) is not None


_HABITUAL = later(
    r"\b(after|every|each|whenever|automatically|always|daily|nightly|weekly|hourly|on (each|every)|per)\b",
    re.I,
)


def habitual(clause: str) -> bool:
    """'old backups are deleted after 7 days': what a thing does each time, not what the turn did once."""
    return _HABITUAL.search(clause) is not None


def presenting(clause: str) -> bool:
    """ "Here's what I did:", "Below is the diff": it introduces what follows, in no mood of its own."""
    return _PRESENTING.match(clause) is not None


# words that judge how the work behaves, not what it is: a claim only a run of it can show
_EVALUATIVE = later(
    r"\b(correctly|properly|fine|as (expected|intended)|reliably|safely|no longer|any ?more|unaffected|"
    r"(in)?compatible|(im)?possible|stays|remains|still (works?|runs?|passes|builds?|starts?)|"
    r"without (errors?|issues|problems|warnings)|match(es)?|identical|exactly|same as|"
    r"no (other|more|remaining)|none left|nothing else)\b",
    re.I,
)
_CEASED = later(r"\b(no longer|not any ?more|n't\b.*\bany ?more)\b", re.I)
_SELF = later(r"^\W*(i|we)\b", re.I)


def evaluative(clause: str) -> bool:
    return _EVALUATIVE.search(clause) is not None


def ceased(clause: str) -> bool:
    """'The warning no longer appears': the negation ends a failure, so the clause claims a state; not for the
    agent's own doing ("I no longer have access")."""
    return _CEASED.search(clause) is not None and _SELF.match(clause) is None


_NOT_VERBS = _PREPOSITIONS | _DETERMINERS | _FILLERS | FINITE | _set("and or but so than then not no of per")


def _plural_verb(before: str, word: str, after: list[str]) -> bool:
    """A plural subject's present verb: "rows remain in", "tests pass" (a bare word after a plural noun, at the
    end or before a preposition)."""
    plural = len(before) > 3 and before.endswith("s") and not before.endswith("ss") and before.isalpha()
    bare = (
        word.isalpha() and len(word) > 2 and word not in _NOT_VERBS and not word.endswith(("s", "ed", "ly"))
    )
    return plural and bare and (not after or after[0] in _PREPOSITIONS)
