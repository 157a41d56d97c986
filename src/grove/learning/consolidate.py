"""Asking a model to merge overlapping skills into one class-level ("umbrella") skill; parsing its proposal.

The model only proposes: the curator validates the proposal and applies it (or, in a dry run, shows it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from grove.llm.types import Model, ModelSettings
from grove.skills.skill import Skill

PROMPT = """\
You curate a library of agent skills (procedures in SKILL.md files). The skills below overlap. Merge them into ONE \
class-level skill that covers every case they cover and drops repetition. Keep EVERY command, code block and rule \
(must/never/always/avoid...) of the originals word for word; anything you leave out must be listed in "dropped" with \
the reason, or the merge is refused. Name it for the class of task (lowercase a-z, 0-9, single hyphens); you may reuse one of their \
names. If they should NOT be merged (different purposes), answer {"merge": false, "why": "..."}.
Otherwise answer with only this JSON: {"merge": true, "name": "...", "content": "<the whole SKILL.md, with \
---\\nname: ...\\ndescription: ...\\n--- frontmatter>", "why": "one line", \
"dropped": [{"item": "<the command, code line or rule left out>", "why": "<why it is no longer needed>"}]}\
"""


class ProposalError(Exception):
    """The model's answer is not a usable proposal."""


@dataclass
class Proposal:
    merge: bool
    name: str = ""
    content: str = ""
    why: str = ""
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (item left out, why)


def _json_object(text: str) -> dict:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        raise ProposalError("the answer holds no JSON object")
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError as e:
        raise ProposalError(f"the answer's JSON is invalid ({e.msg})") from e
    if not isinstance(data, dict):
        raise ProposalError("the answer's JSON is not an object")
    return data


def parse_proposal(text: str) -> Proposal:
    data = _json_object(text)
    if not data.get("merge"):
        return Proposal(False, why=str(data.get("why") or ""))
    name, content = str(data.get("name") or ""), str(data.get("content") or "")
    if not name or not content.lstrip().startswith("---"):
        raise ProposalError("a merge needs 'name' and 'content' (a whole SKILL.md with frontmatter)")
    dropped = [
        (str(d.get("item") or ""), str(d.get("why") or ""))
        for d in data.get("dropped") or []
        if isinstance(d, dict)
    ]
    return Proposal(True, name, content, str(data.get("why") or ""), dropped)


def propose(model: Model, skills: list[Skill]) -> Proposal:
    shown = "\n\n".join(f"=== {s.name} ===\n{s.skill_md.read_text(encoding='utf-8')}" for s in skills)
    messages = [{"role": "system", "content": PROMPT}, {"role": "user", "content": shown}]
    completion = model.complete(messages, [], ModelSettings(temperature=0))
    return parse_proposal(completion.text)
