"""The reflective operator, through gepa's own reflective proposer: gepa's StatelessReflectionLM renders the failing
items (input, what the agent did, the grader's feedback, the expected result) with its InstructionProposalSignature
and parses the reply; grove's template adds the whole skill and the section rules (heading kept, no new headings,
a byte budget), and the heading is put back if the model dropped it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grove.evolve.candidate import heading_of
from grove.evolve.operators import Record, failing
from grove.llm.types import Model, ModelSettings

if TYPE_CHECKING:
    from gepa.proposer.reflective_mutation.base import LanguageModel

TEMPLATE = """You improve one section of a skill (instructions an assistant follows while it works on a task).

Whole skill:
<skill>
{skill}
</skill>

Section to rewrite:
<section>
<curr_param>
</section>

Items the assistant got wrong with this skill (its input, what it answered and which tools it called, the
grader's feedback, the expected result):
<side_info>

Write a minimal rewrite of the section so these items come out right, without breaking other cases. Keep the heading
line exactly, add no new `## ` headings, stay concise (at most {max_bytes} bytes). Provide the new section within
``` blocks."""


def as_language_model(model: Model) -> LanguageModel:
    """gepa's LanguageModel protocol (a prompt in, text out) over a grove model."""

    def lm(prompt: str | list[dict[str, Any]]) -> str:
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        return model.complete(messages, [], ModelSettings(temperature=0.0)).text or ""

    return lm


def reflect(
    model: Model, skill: str, key: str, section: str, records: Sequence[Record], max_bytes: int
) -> str | None:
    from gepa.proposer.reflective_mutation.reflection_lm import StatelessReflectionLM

    bad = [dict(r) for r in failing(records)[:5]]
    if not bad:
        return None
    # str.replace, not format: a skill may hold braces; <curr_param> and <side_info> are gepa's placeholders
    template = TEMPLATE.replace("{skill}", skill).replace("{max_bytes}", str(max_bytes))
    proposer = StatelessReflectionLM(as_language_model(model), template)
    proposal, _ = proposer.reflect({key: section}, {key: bad}, [key])
    text = proposal.new_texts.get(key, "").strip("\n")
    heading = heading_of(key)
    if heading and not text.startswith(heading):
        text = heading + "\n" + text
    text = text.rstrip("\n") + "\n" + ("\n" if section.endswith("\n\n") else "")
    return text if text.strip() and text != section else None
