"""The scan's speed shortcuts change no verdict: a recorded snapshot is checked with them on and with them off.

The snapshot (snapshots/scan_verdicts.jsonl) holds its inputs: commands, injection texts, skill files, long documents
(past the RE2 gate's length) and token floods, all taken from this repository's tests. After a deliberate rule
change, record it again: `python tests/security/test_shortcuts_snapshot.py --record` (and say so in the commit).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grove.security.commands.classify import classify_command
from grove.security.fast import shortcuts
from grove.security.injection.scan import scan_text
from grove.security.skill_scan.scan import scan_skill_text

HERE = Path(__file__).resolve().parent
SNAPSHOT = HERE / "snapshots" / "scan_verdicts.jsonl"

_COMMANDS = [
    "corpora/commands_benign.txt",
    "corpora/commands_dangerous.txt",
    "corpora/commands_heldout_benign.txt",
    "corpora/commands_heldout_dangerous.txt",
    "redteam/commands_everyday.txt",
    "redteam/commands_obfuscated.txt",
    "redteam/commands_obfuscated_postbuild.txt",
]
_TEXTS = [
    "corpora/injections.txt",
    "corpora/injections_signals.txt",
    "corpora/benign_instructions.txt",
    "corpora/benign_instructions_signals.txt",
    "redteam/injections_attacks.txt",
    "redteam/injections_benign.txt",
]
_SKILLS = ["corpora/skills", "corpora/skills_heldout", "redteam/skills"]


def _lines(rel: str) -> list[str]:
    text = (HERE / rel).read_text(encoding="utf-8")
    return [ln.replace("\\n", "\n") for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def _inputs() -> Iterator[dict[str, str]]:
    """What is recorded: (kind, name, input) taken from the corpora and red-team files in tests/security."""
    for rel in _COMMANDS:
        for i, cmd in enumerate(_lines(rel)):
            yield {"kind": "command", "name": f"{rel}:{i}", "input": cmd}
    for rel in _TEXTS:
        lines = _lines(rel)
        for i, text in enumerate(lines):
            yield {"kind": "context", "name": f"{rel}:{i}", "input": text}
        # Long documents (past signal_gate's GATE_FROM), so the RE2 gate and the sentence cuts are what runs.
        for start in range(0, len(lines), 12):
            doc = "# Notes\n\n" + "\n\n".join(lines[start : start + 12])
            yield {"kind": "file", "name": f"{rel}:doc{start}", "input": doc}
            yield {"kind": "skill", "name": f"{rel}:doc{start}/SKILL.md", "input": doc}
    for rel in _SKILLS:
        for path in sorted((HERE / rel).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                name = str(path.relative_to(HERE))
                yield {
                    "kind": "skill",
                    "name": name,
                    "input": path.read_text(encoding="utf-8", errors="replace"),
                }
    # Token floods (padding) and their look-alikes: separator lines, numeric arrays, one repeated letter.
    benign = _lines("corpora/benign_instructions.txt")
    for i, unit in enumerate(["ö ", ")]}", "-=", "ab", "1, ", "a", "Ignore ", "─", "\u200b.", "xyz!"]):
        for reps in (29, 30, 45):
            text = f"{benign[i]}\n{unit * reps}\n{benign[i + 1]}"
            yield {"kind": "context", "name": f"flood:{unit!r}x{reps}", "input": text}


def verdict(item: dict[str, str]) -> dict[str, object]:
    """The verdict and reasons the scan gives one recorded input today."""
    kind, text = item["kind"], item["input"]
    if kind == "command":
        v = classify_command(text)
        reasons = [
            f"{f.rule}|{f.effect}|{'unknown' if f.unknown else ''}|{f.description}" for f in v.findings
        ]
        return {"verdict": v.level, "reasons": reasons}
    if kind == "skill":
        result = scan_skill_text(text, path=item["name"])
        return {"verdict": result.verdict, "reasons": list(result.reasons)}
    found = scan_text(text, source="snapshot", kind=kind)
    return {"verdict": found.verdict, "reasons": found.reasons, "score": round(found.score, 6)}


def _recorded() -> list[dict[str, object]]:
    return [json.loads(line) for line in SNAPSHOT.read_text(encoding="utf-8").splitlines()]


def _mismatches(records: list[dict[str, object]]) -> list[str]:
    out = []
    for rec in records:
        item = {k: str(rec[k]) for k in ("kind", "name", "input")}
        want = {k: rec[k] for k in ("verdict", "reasons", "score") if k in rec}
        got = verdict(item)
        if got != want:
            out.append(f"{rec['name']}: recorded {want}, now {got}")
    return out


@pytest.mark.parametrize("mode", ["shortcuts-on", "shortcuts-off"])
def test_recorded_verdicts_hold(mode: str) -> None:
    records = _recorded()
    assert len(records) >= 300, (
        f"{SNAPSHOT} holds {len(records)} records; record it again (see the docstring)"
    )
    assert {r["verdict"] for r in records} >= {"safe", "dangerous"}  # both sides of every scan are recorded
    if mode == "shortcuts-on":
        if not shortcuts.on():
            pytest.skip("GROVE_SCAN_SHORTCUTS=0 is set: the shortcut path cannot run in this process")
        bad = _mismatches(records)
    else:
        with shortcuts.off():
            assert not shortcuts.on()
            bad = _mismatches(records)
    assert not bad, f"{len(bad)} verdicts differ from the snapshot ({mode}):\n" + "\n".join(bad[:20])


def test_off_switch_reaches_the_gate() -> None:
    """With the shortcuts off the RE2 gate answers "every pattern may match" and reads no text."""
    from grove.security.fast.signal_gate import Gate

    gate = Gate([None])
    with shortcuts.off():
        assert gate.look("x" * 2000) == (None, [True])
    assert not gate.built  # off, the gate never compiled RE2


def _record() -> None:
    SNAPSHOT.parent.mkdir(exist_ok=True)
    with SNAPSHOT.open("w", encoding="utf-8") as out:
        for item in _inputs():
            out.write(json.dumps({**item, **verdict(item)}, ensure_ascii=False) + "\n")
    print(f"recorded {sum(1 for _ in _inputs())} verdicts in {SNAPSHOT}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit("usage: python tests/security/test_shortcuts_snapshot.py --record")
    _record()
