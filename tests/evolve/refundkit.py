"""A refund skill missing a rule, its dataset, and deterministic script models for the evolution tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

from grove.llm.script import ScriptModel

SKILL = """---
name: refund-policy
description: Decide refund eligibility for an order. Use when asked whether an order can be refunded.
---
# Refund policy

Answer with one word: approve or deny.

## Rules
- Orders more than 30 days old are denied.
- Other orders are approved.

## Examples
- Example: order 3 days old, unopened book -> approve
"""
RULE = "- Opened software is denied."


def write_skill(root: Path) -> Path:
    folder = root / "refund-policy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return folder


def write_dataset(path: Path, n: int = 260) -> Path:
    items = []
    for i in range(n):
        days = 2 + (i * 7) % 50
        opened = i % 2 == 0
        what = "opened software" if opened else "unopened book"
        expected = "deny" if days > 30 or opened else "approve"
        items.append(
            {
                "id": f"r{i}",
                "input": f"order {days} days old, {what}",
                "expected": expected,
                "paraphrases": [f"Can I refund my {what}? I bought it {days} days ago."],
                "family": f"f{i}",
            }
        )
    path.write_text("".join(json.dumps(x) + "\n" for x in items), encoding="utf-8")
    return path


def _decide(skill: str, question: str) -> str:
    days = int(re.search(r"(\d+) days", question).group(1))
    if days > 30 and "more than 30 days old are denied" in skill.lower():
        return "deny"
    if "opened software" in question:
        knows_rule = "opened software is denied" in skill.lower()
        learned = re.search(r"opened software -> deny", skill) is not None
        return "deny" if knows_rule or learned else "approve"
    return "approve"


def task_model() -> ScriptModel:
    """Follows the skill literally: knows each rule only from the skill's text (a rule or a worked example)."""
    return ScriptModel(lambda messages, tools: _decide(messages[0]["content"], messages[-1]["content"]))


def reflection_model() -> ScriptModel:
    """Reads the failures' expected answers and writes the missing rule into the Rules section."""

    def fn(messages, tools):
        prompt = messages[-1]["content"]
        section = prompt.split("<section>\n", 1)[1].split("\n</section>", 1)[0]
        if "## Expected\ndeny" in prompt and "opened software" in prompt and RULE not in section:
            return section.rstrip("\n") + "\n" + RULE + "\n"
        return section

    return ScriptModel(fn)
