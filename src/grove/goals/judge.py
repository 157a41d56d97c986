"""The goal judge: a separate model call that reads the goal, its criteria and the latest work, and answers
one line of JSON: {"verdict": "done" | "continue" | "blocked", "reason": "..."}."""

from __future__ import annotations

import json
import re

from grove.goals.store import VERDICTS, Goal, Verdict
from grove.llm.errors import ModelError
from grove.llm.types import Message, Model, ModelSettings

SYSTEM = """You judge whether an AI agent has reached a goal. You get the goal, its acceptance criteria and the \
agent's latest work. Answer with ONE line of JSON and nothing else:
{"verdict": "done" | "continue" | "blocked", "reason": "..."}
done: the work shows every criterion holds. continue: more work can get there; the reason says what to do next. \
blocked: the agent cannot go on without the user (access, a decision, an impossible request); the reason says \
what is needed. Judge only from the work shown; claims without evidence are not enough for done."""
NUDGE = 'That was not one line of JSON. Answer only: {"verdict": "done" | "continue" | "blocked", "reason": "..."}'
_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


class JudgeError(Exception):
    """The judge gave no usable verdict after its retries (or its model failed): the goal pauses."""


def parse_verdict(text: str) -> Verdict | None:
    """The first JSON object in `text` with a known verdict; tolerant of code fences and chatter around it."""
    for candidate in _OBJECT.findall(text or ""):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and str(data.get("verdict", "")).strip().lower() in VERDICTS:
            return Verdict(
                str(data["verdict"]).strip().lower(), str(data.get("reason") or "").strip(), raw=text
            )
    return None


def judge_prompt(goal: Goal, work: str) -> str:
    criteria = (
        "\n".join(f"- {c}" for c in goal.criteria) or "- (none given: the goal as stated must be achieved)"
    )
    return (
        f"<goal>\n{goal.text}\n</goal>\n\n<acceptance-criteria>\n{criteria}\n</acceptance-criteria>\n\n"
        f"<turns-used>{goal.turns_used} of {goal.max_turns}</turns-used>\n\n<latest-work>\n{work}\n</latest-work>"
    )


class Judge:
    def __init__(self, model: Model, attempts: int = 2, settings: ModelSettings | None = None) -> None:
        self.model = model
        self.attempts = attempts
        self.settings = settings or ModelSettings(max_tokens=300, temperature=0)

    def judge(self, goal: Goal, work: str) -> Verdict:
        messages: list[Message] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": judge_prompt(goal, work)},
        ]
        reply = ""
        for _ in range(self.attempts):
            try:
                reply = self.model.complete(messages, [], self.settings).text or ""
            except ModelError as e:
                raise JudgeError(f"the judge model failed: {e}") from e
            verdict = parse_verdict(reply)
            if verdict is not None:
                return verdict
            messages = [
                *messages,
                {"role": "assistant", "content": reply},
                {"role": "user", "content": NUDGE},
            ]
        raise JudgeError(f"no verdict in the judge's reply after {self.attempts} tries: {reply[:200]!r}")
