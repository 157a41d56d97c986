"""A basic content scan of skill text before it is written or imported: verdict safe | caution | dangerous."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Verdict = Literal["safe", "caution", "dangerous"]

# (pattern, reason); case-insensitive. Dangerous: what a skill should never tell an agent to do.
_DANGEROUS: list[tuple[str, str]] = [
    (
        r"\brm\s+-[a-z]*r[a-z]*f?[a-z]*\s+(--no-preserve-root\s+)?(/|~|\$HOME)(\s|$|\*)",
        "deletes a root or home folder",
    ),
    (r"\b(curl|wget)\b[^\n|]*\|\s*(sudo\s+)?(ba|z|k)?sh\b", "pipes a download straight into a shell"),
    (r"base64\s+(-d|--decode)[^\n]*\|\s*(ba|z)?sh\b", "runs base64-hidden commands"),
    (r"\bmkfs(\.\w+)?\s+/dev/|\bdd\s+[^\n]*of=/dev/(sd|nvme|hd)", "overwrites a disk"),
    (r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;", "fork bomb"),
    (
        r"ignore\s+(all\s+)?(previous|prior|above)\s+(instructions|rules)|disregard\s+(your|the)\s+system\s+prompt",
        "prompt injection: tells the agent to ignore its instructions",
    ),
    (
        r"(\.ssh/id_\w+|\.aws/credentials|\.netrc|\.grove/\.env)[^\n]*\b(curl|wget|nc|scp)\b"
        r"|\b(curl|wget|nc)\b[^\n]*(\.ssh/id_\w+|\.aws/credentials|\.netrc)",
        "sends credential files over the network",
    ),
    (
        r"(>>?|tee\s+-a)\s*~?/?[^\s]*(\.bashrc|\.zshrc|\.profile|authorized_keys)\b",
        "writes shell start-up or SSH keys",
    ),
    (r"\bcrontab\s+-r\b|\(crontab\s+-l[^)]*\)\s*\|\s*crontab", "installs or wipes cron jobs (persistence)"),
    (r"[\u200b\u200c\u200d\u2060\u202a-\u202e\u2066-\u2069]", "hidden Unicode control characters"),
]
_CAUTION: list[tuple[str, str]] = [
    (
        r"\b(curl|wget|nc)\b[^\n]*\$\{?\w*(API_KEY|TOKEN|SECRET|PASSWORD)\w*\}?",
        "sends an environment secret over the network (fine for its own API, not elsewhere)",
    ),
    (r"\bsudo\b", "uses sudo"),
    (r"\bchmod\s+(-R\s+)?777\b", "makes files world-writable"),
    (r"\b(curl|wget)\s+[^\n]*https?://", "downloads from the network"),
    (r"\beval\s*[\"'(`$]", "evaluates built strings"),
    (r"\brm\s+-[a-z]*r", "removes folders recursively"),
    (r"\bgit\s+push\s+[^\n]*(--force|-f)\b", "force-pushes"),
    (
        r"(api[_-]?key|secret|password|token)\s*[:=]\s*['\"]?[A-Za-z0-9_\-]{16,}",
        "contains what looks like a secret",
    ),
    (r"\bDROP\s+(TABLE|DATABASE)\b", "drops database objects"),
]
_COMPILED = [(re.compile(p, re.IGNORECASE), r, "dangerous") for p, r in _DANGEROUS] + [
    (re.compile(p, re.IGNORECASE), r, "caution") for p, r in _CAUTION
]


@dataclass
class ScanResult:
    verdict: Verdict
    reasons: list[str] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return self.verdict == "dangerous"


def scan_skill_text(text: str) -> ScanResult:
    """Match `text` against dangerous and cautionary patterns; each reason names the line it was found on."""
    reasons: list[str] = []
    worst: Verdict = "safe"
    for rx, reason, level in _COMPILED:
        m = rx.search(text)
        if m is None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        reasons.append(f"{level}: {reason} (line {line})")
        if level == "dangerous":
            worst = "dangerous"
        elif worst == "safe":
            worst = "caution"
    return ScanResult(worst, reasons)
