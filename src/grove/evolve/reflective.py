"""The reflective operator: a reflection model reads the skill, one section, failing items with their grader
feedback and expected outputs, and proposes a minimal rewrite of that section."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from grove.evolve.candidate import heading_of
from grove.evolve.operators import Record, failing
from grove.llm.types import Model, ModelSettings

PROMPT = """You improve one section of a skill (instructions an assistant follows).

Whole skill:
<skill>
{skill}
</skill>

Section to rewrite:
<section>
{section}
</section>

Items the assistant got wrong with this skill (input, its output, the grader's feedback, the expected answer):
{failures}

Write a minimal rewrite of the section so these items come out right, without breaking other cases. Keep the heading
line exactly, add no new `## ` headings, stay concise (at most {max_bytes} bytes). Reply with the section text only."""

_FENCE = re.compile(r"^```[a-z]*\n(.*?)\n```\s*$", re.DOTALL)


def reflect(
    model: Model, skill: str, key: str, section: str, records: Sequence[Record], max_bytes: int
) -> str | None:
    bad = failing(records)[:5]
    if not bad:
        return None
    failures = "\n".join(
        json.dumps(
            {
                "input": r["Inputs"],
                "output": r["Generated Outputs"],
                "feedback": r["Feedback"],
                "expected": r["Expected"],
            },
            ensure_ascii=False,
        )
        for r in bad
    )
    prompt = PROMPT.format(skill=skill, section=section, failures=failures, max_bytes=max_bytes)
    reply = (
        model.complete([{"role": "user", "content": prompt}], [], ModelSettings(temperature=0.0)).text or ""
    )
    text = reply.strip("\n")
    fenced = _FENCE.match(text.strip())
    if fenced:
        text = fenced.group(1)
    heading = heading_of(key)
    if heading and not text.startswith(heading):
        text = heading + "\n" + text
    text = text.rstrip("\n") + "\n" + ("\n" if section.endswith("\n\n") else "")
    return text if text.strip() and text != section else None
