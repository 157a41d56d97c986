"""Co-occurring signals for injections the phrase rules miss: within one sentence (or two), words that address
the model, void its instructions, demand secrecy, reach for secrets or a channel out. One signal alone is prose;
the combinations below are what injections are made of."""

from __future__ import annotations

import bisect
import re

_I = re.I
SIGNALS: dict[str, re.Pattern[str]] = {
    "void": re.compile(
        r"\b(?:ignor\w*|disregard\w*|forget|overrid\w*|bypass\w*|supersed\w*|void|lifted|no\s+longer\s+(?:apply|"
        r"valid|in\s+effect)|cancel(?:l?ed)?|revoked?|replac\w+|outdated|obsolete|null\s+and\s+void)\b",
        _I,
    ),
    "instructions": re.compile(
        r"\b(?:instructions?|prompts?|system\s+prompt|guidelines|guardrails|directives?|rules|policies|"
        r"restrictions|filters|safety\s+checks|what\s+the\s+user\s+said|the\s+user'?s?\s+(?:request|message))\b",
        _I,
    ),
    "addressee": re.compile(
        r"\b(?:ai|llm|assistant|agent|chatbot|language\s+model|ai\s+model|gpt|claude|grove|copilot)\b|"
        r"\byou(?:'re|\s+are)\s+(?:an?\s+)?(?:free\s+)?(?:ai|assistant|model|bot)\b|\bdear\s+(?:ai|model|assistant)",
        _I,
    ),
    "secrecy": re.compile(
        r"\b(?:do\s+not|don't|never)\s+(?:tell|mention|reveal\s+this|inform|say)\b|\bsilently\b|\bquietly\b|"
        r"\bwithout\s+(?:telling|informing|asking|approval|confirmation)\b|\bhide\s+this\b|\bsecretly\b",
        _I,
    ),
    "secret": re.compile(
        r"\b(?:api\s*keys?|secrets?|passwords?|credentials?|tokens?|private\s+keys?|ssh\s+keys?|"
        r"environment\s+variables|env\s+vars)\b|~/\.(?:ssh|aws|config|netrc|kube)|\.env\b|/etc/(?:passwd|shadow)",
        _I,
    ),
    "harm": re.compile(
        r"\b(?:delete|wipe|erase|destroy|remove)\s+(?:all|every|the\s+entire|everything)\b|\brm\s+-\w*r|"
        r"\|\s*(?:ba)?sh\b|\bnc\s+-e\b|\breverse\s+shell\b|\bdisable\s+(?:the\s+)?(?:alarm|security|firewall|"
        r"approvals?|sandbox|logging)",
        _I,
    ),
    "channel": re.compile(
        r"https?://\S+|\b[\w.-]+@[\w-]+\.[a-z]{2,}\b|\bwebhook\b|\b(?:get|post|put)\s+request\b|"
        r"\bhttp_request\b|\binto\s+your\s+(?:reply|answer|response)\b",
        _I,
    ),
    "send": re.compile(
        r"\b(?:send|post|upload|email|forward|transmit|exfiltrat\w*|copy|paste|leak|make\s+a|"
        r"append|attach|list|print|output)\b",
        _I,
    ),
    "new_task": re.compile(
        r"\bnew\s+(?:priority\s+)?(?:task|directive|objective|orders?|mission)\b|\bthis\s+is\s+your\s+"
        r"(?:developer|creator|admin|operator|owner)\b|\bpriority\s+directive\b|\b(?:instructions?|prompt)\s+"
        r"override\b|\bhidden\s+instructions?\b|\bfollow\s+only\s+(?:this|these|my)\b",
        _I,
    ),
    "leak": re.compile(
        r"\b(?:your|the)\s+(?:original|secret|initial|hidden|system|first|real)\s+(?:instructions?|prompt|"
        r"message)\b|\beverything\s+(?:above|before)\s+this\b|\bwhat\s+(?:were|are)\s+your\s+(?:\w+\s+)?"
        r"(?:instructions|rules|prompt)\b",
        _I,
    ),
    "unbound": re.compile(
        r"\b(?:zero|no|without\s+any|free\s+of\s+all)\s+(?:restrictions|limits|filters|rules|guidelines|"
        r"censorship)\b|\bunbound\b|\bno\s+filters\b|\bunrestricted\b|\bwithout\s+approval\b",
        _I,
    ),
    "command": re.compile(r"\b(?:run|execute)\s+`[^`]+`", _I),
    "you": re.compile(r"\byou(?:r|'re|\s+are|\s+were|\s+received|\s+have)?\b", _I),
    "imperative": re.compile(
        r"(?:^|[.:;!]\s*|\bplease\s+|\bkindly\s+|\bnow\s+)(?:ignore|send|print|output|"
        r"copy|delete|run|execute|respond|reply|list|make|tell|email|forward|comply|follow)\b",
        _I,
    ),
}
# Each combination is a reason; all its signals must be present in the same window.
COMBOS: list[tuple[str, tuple[str, ...]]] = [
    ("override", ("void", "instructions", "you")),
    ("override", ("void", "instructions", "imperative")),
    ("override", ("void", "instructions", "new_task")),
    ("override", ("void", "instructions", "unbound")),
    ("override", ("new_task", "imperative")),
    ("override", ("new_task", "secret")),
    ("override", ("new_task", "harm")),
    ("override", ("addressee", "harm", "imperative")),
    ("override", ("addressee", "secrecy")),
    ("override", ("secrecy", "command")),
    ("override", ("addressee", "void")),
    ("prompt-leak", ("leak", "send")),
    ("prompt-leak", ("leak", "imperative")),
    ("jailbreak", ("unbound", "addressee")),
    ("exfiltration", ("secret", "channel", "send", "imperative")),
    ("exfiltration", ("secret", "channel", "addressee")),
    ("exfiltration", ("addressee", "secret", "send", "you")),
]


def signal_findings(text: str) -> list[tuple[str, str]]:
    """(category, excerpt) for every window of one or two sentences where a combination holds.

    Each signal runs once over the whole text (a few ms for a 100 KB page), and hits are mapped to sentences."""
    bounds = [0] + [m.end() for m in re.finditer(r"[.!?\n]\s+", text)] + [len(text)]
    present: list[set[str]] = [set() for _ in range(len(bounds) - 1)]
    for name, pattern in SIGNALS.items():
        for m in pattern.finditer(text):
            present[bisect.bisect_right(bounds, m.start()) - 1].add(name)
    out: list[tuple[str, str]] = []
    for i in range(len(present)):
        for width in (1, 2):
            if i + width > len(present):
                continue
            got = set().union(*present[i : i + width])
            hit = next((category for category, needed in COMBOS if set(needed) <= got), None)
            if hit:
                excerpt = text[bounds[i] : bounds[i + width]].strip()
                out.append((hit, excerpt if len(excerpt) <= 80 else excerpt[:77] + "..."))
                break
    return out
