"""Issue 15: a session that wrote and ran the same code twice is shown to the reviewer as repeated code, and the
reviewer can turn it into a tested code skill (skill_code_create), credited to the reviewed session."""

from __future__ import annotations

import json
from pathlib import Path

from grove.config import Settings
from grove.learning.review import render_transcript
from grove.llm.script import ScriptModel
from grove.llm.types import Message
from grove.skills.code_meta import is_code_skill
from grove.skills.discover import discover
from grove.store.sessions import SessionStore

SCRIPT = """python3 - <<'EOF'
import csv
rows = list(csv.DictReader(open('{path}')))
total = sum(float(r['amount']) for r in rows if r['region'] == '{region}')
print(round(total, 2))
EOF"""

SKILL_CODE = (
    "import csv\n\n\ndef solve(path: str, region: str) -> float:\n"
    '    """Total of the amount column for one region of a CSV."""\n'
    "    rows = list(csv.DictReader(open(path)))\n"
    "    return round(sum(float(r['amount']) for r in rows if r['region'] == region), 2)\n"
)
SKILL_TESTS = (
    "from skill import solve\n\n\ndef test_total(tmp_path):\n    p = tmp_path / 's.csv'\n"
    "    p.write_text('region,amount\\neu,1.5\\nus,2\\neu,2\\n')\n    assert solve(str(p), 'eu') == 3.5\n"
)


def terminal(command: str, i: int) -> list[Message]:
    args = json.dumps({"command": command})
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "terminal", "arguments": args}}
            ],
        },
        {"role": "tool", "tool_call_id": f"c{i}", "name": "terminal", "content": "exit=0\n12.5"},
    ]


def repeated_session() -> list[Message]:
    return [
        {"role": "user", "content": "total the eu sales in jan.csv"},
        *terminal(SCRIPT.format(path="jan.csv", region="eu"), 1),
        {"role": "assistant", "content": "12.5"},
        {"role": "user", "content": "now the us sales in feb.csv"},
        *terminal(SCRIPT.format(path="feb.csv", region="us"), 2),
        *terminal("ls -la", 3),
        *terminal("ls -la", 4),
        {"role": "assistant", "content": "7.0"},
    ]


def test_repeated_code_is_found_with_other_values_but_short_commands_are_not() -> None:
    from grove.codeskills.repeats import find_repeats, fingerprint

    [repeat] = find_repeats(repeated_session())
    assert repeat.runs == 2 and repeat.values_differ and "csv.DictReader" in repeat.code
    assert find_repeats(repeated_session()[:5]) == []  # ran once: nothing repeated
    assert fingerprint("x = f('a', 1)  # note") == fingerprint("x = f('b', 22)")


def test_a_script_file_written_once_and_run_twice_counts() -> None:
    from grove.codeskills.repeats import find_repeats

    body = "import sys\n" + "print(sum(int(a) for a in sys.argv[1:]))  # add the numbers up, all of them\n"
    write = json.dumps({"path": "tools/add.py", "content": body})
    messages: list[Message] = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "w", "type": "function", "function": {"name": "write_file", "arguments": write}}
            ],
        },
        {"role": "tool", "tool_call_id": "w", "name": "write_file", "content": "wrote tools/add.py"},
        *terminal("python3 tools/add.py 1 2", 1),
        *terminal("python3 ./tools/add.py 3 4 5", 2),
    ]
    [repeat] = find_repeats(messages)
    assert repeat.runs == 2 and "sys.argv" in repeat.code


def test_the_reviewer_is_shown_the_repeated_code() -> None:
    text = render_transcript(repeated_session(), limit=300)  # even when the transcript itself is cut
    assert (
        "Repeated code" in text
        and "skill_code_create" in text
        and "Ran 2 times (with different values" in text
    )
    assert "csv.DictReader" in text.split("Repeated code", 1)[1]
    assert "Repeated code" not in render_transcript(repeated_session()[:5])


def test_a_review_turns_the_repeated_code_into_a_code_skill(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    from grove.runtime.review import review_session

    # the reviewer runs unattended; without bubblewrap or Landlock the user must have accepted unisolated runs
    settings.security.allow_unisolated = True
    sid = store.create_session("script", title="sales totals")
    for m in repeated_session():
        store.add_message(sid, m)
    create = {"name": "csv-region-total", "description": "Total a CSV's amount column for one region."}
    reviewer = ScriptModel(
        [
            {
                "tool_calls": [
                    {
                        "name": "skill_code_create",
                        "arguments": {**create, "code": SKILL_CODE, "tests": SKILL_TESTS},
                    }
                ]
            },
            "Made the repeated CSV total a code skill.",
        ]
    )
    report = review_session(settings, reviewer, sid, workspace=workspace, store=store)
    assert report.error is None, report.error
    task = reviewer.requests[0][0][1]["content"]
    assert "Repeated code" in task and "csv.DictReader" in task
    assert any(t["function"]["name"] == "skill_code_create" for t in reviewer.requests[0][1])
    assert [(c["action"], c["name"], c["applied"]) for c in report.changes] == [
        ("code_create", "csv-region-total", True)
    ]
    skill = discover(settings, workspace).get("csv-region-total")
    assert skill is not None and is_code_skill(skill.metadata)
    assert "solve(path: str, region: str) -> float" in (skill.path / "SKILL.md").read_text()
