"""A curator merge keeps every command, code line and rule of the skills it replaces, or lists what it dropped
and why; a merge that loses them silently is refused and nothing changes."""

from __future__ import annotations

import json

from grove.config import Settings
from grove.learning.curator import run_curator
from grove.learning.merge_check import check_merge, essentials
from grove.llm.script import ScriptModel
from grove.skills.discover import discover, home_skills_dir
from grove.skills.manage import SkillManager
from grove.store.sessions import SessionStore

TOTALS = """---
name: csv-totals
description: Compute column totals of a CSV file and write a markdown report.
---
# Steps
1. Check the delimiter with `head -3 data.csv`.
2. Total the columns:

```bash
python -m csvkit.csvstat --sum data.csv > totals.txt
```

- Never edit the source CSV in place.
"""
REPORT = """---
name: csv-report
description: Write a markdown report of a CSV file with totals per column.
---
# Steps
$ csvlook data.csv > report.md
- Always put the totals row last.
"""
HEAD = (
    "---\nname: csv-reports\ndescription: Summarise CSV files into column totals and markdown reports.\n---\n"
)
EVERYTHING = (
    HEAD + "# CSV reports\n1. Check the delimiter with `head -3 data.csv`.\n"
    "```bash\npython -m csvkit.csvstat --sum data.csv > totals.txt\ncsvlook data.csv > report.md\n```\n"
    "- Never edit the source CSV in place.\n- Always put the totals row last in the report.\n"
)
VAGUE = HEAD + "# CSV reports\n1. Read the CSV.\n2. Total each column.\n3. Write a markdown report.\n"


def test_essentials_are_commands_code_and_rules() -> None:
    found = [(e.kind, e.text) for e in essentials(TOTALS)]
    assert found == [
        ("command", "head -3 data.csv"),
        ("code", "python -m csvkit.csvstat --sum data.csv > totals.txt"),
        ("rule", "Never edit the source CSV in place."),
    ]


def test_check_keeps_refuses_and_excuses() -> None:
    assert check_merge([TOTALS, REPORT], EVERYTHING).ok
    vague = check_merge([TOTALS, REPORT], VAGUE)
    assert not vague.ok and len(vague.missing) == 5 and "drops 5 item(s)" in vague.describe()
    excused = check_merge(
        [TOTALS, REPORT],
        EVERYTHING.replace("- Always put the totals row last in the report.\n", ""),
        [("Always put the totals row last.", "the csvstat output already ends with totals")],
    )
    assert excused.ok and [e.text for e, _ in excused.excused] == ["Always put the totals row last."]
    no_reason = check_merge([REPORT], HEAD + "x\n", [("csvlook data.csv > report.md", " ")])
    assert no_reason.missing[0].text == "csvlook data.csv > report.md"


def library(settings: Settings, store: SessionStore) -> None:
    agent = SkillManager(home_skills_dir(settings.home), store.db, actor="agent")
    agent.create("csv-totals", TOTALS)
    agent.create("csv-report", REPORT)


def proposal(content: str, dropped: list[dict] | None = None) -> str:
    answer = {"merge": True, "name": "csv-reports", "content": content, "why": "same task"}
    return json.dumps({**answer, "dropped": dropped or []})


def test_a_merge_that_drops_every_command_is_refused(settings: Settings, store: SessionStore) -> None:
    library(settings, store)
    report = run_curator(settings, model=ScriptModel([proposal(VAGUE)]), db=store.db)
    [action] = report.actions
    assert action.kind == "skipped" and not action.applied
    assert "refused" in action.detail and "csvlook data.csv > report.md" in action.detail
    assert sorted(discover(settings).skills) == ["csv-report", "csv-totals"]  # nothing changed


def test_a_merge_that_keeps_everything_or_says_why_is_applied(
    settings: Settings, store: SessionStore
) -> None:
    library(settings, store)
    kept = EVERYTHING.replace("- Always put the totals row last in the report.\n", "")
    dropped = [{"item": "Always put the totals row last.", "why": "csvstat already ends with the totals"}]
    report = run_curator(settings, model=ScriptModel([proposal(kept, dropped)]), db=store.db)
    [action] = report.actions
    assert action.kind == "consolidate" and action.applied
    assert (
        "dropped rule 'Always put the totals row last.': csvstat already ends with the totals"
        in action.detail
    )
    assert sorted(discover(settings).skills) == ["csv-reports"]
