"""A Python name bound through itself (`x = f[x]()`, seen in a community skill) is resolved to a bounded depth."""

from __future__ import annotations

from grove.security.skill_scan.python_code import python_hits
from grove.security.skill_scan.scan import scan_skill_file


def test_a_name_resolved_through_itself_ends() -> None:
    assert python_hits("x = f[x]()\n") == []


def test_findings_after_it_are_still_made() -> None:
    hits = python_hits('import os\nx = f[x]()\nos.system("rm -rf ~")\n')
    assert [h.level for h in hits] == ["dangerous"]


def test_a_shown_block_holding_it_gets_a_verdict() -> None:
    text = "---\nname: loop\ndescription: d\n---\n\n```python\nx = f[x]()\ny = x.run()\n```\n"
    assert scan_skill_file("SKILL.md", text, "test", True).verdict == "safe"
