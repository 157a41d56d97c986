"""Run the task model with a candidate skill loaded on each item: k paraphrases x s seeds, graded.

Per item: accuracy = mean grade, tokens = mean prompt + completion tokens, robustness = worst grade over paraphrases
and seeds. Results are cached by (candidate text hash, item id), so re-scoring a candidate costs nothing.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from grove.evolve.dataset import Example
from grove.evolve.graders import Grader, make_grader
from grove.llm.estimate import estimate_tokens
from grove.llm.types import Model, ModelSettings

SYSTEM_PREFIX = "You are an assistant. Follow this skill exactly when answering.\n\n"


@dataclass
class ItemResult:
    id: str
    accuracy: float
    tokens: float
    robustness: float
    outputs: list[str] = field(default_factory=list)
    feedback: str = ""
    prompt: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EvalConfig:
    paraphrases: int = 1  # k: the input plus k-1 paraphrases
    seeds: int = 1  # s: runs per prompt, seeds 0..s-1
    max_tokens: int = 256
    temperature: float = 0.0  # used for seed 0; other seeds run at 0.7
    default_grader: str = "exact"


class Evaluator:
    def __init__(self, model: Model, config: EvalConfig | None = None, judge: Model | None = None) -> None:
        self.model = model
        self.config = config or EvalConfig()
        self.judge = judge
        self._graders: dict[str, Grader] = {}
        self.cache: dict[tuple[str, str], ItemResult] = {}
        self.tokens_spent = 0
        self.model_calls = 0
        self._lock = threading.Lock()

    def grader(self, spec: str | None) -> Grader:
        key = spec or self.config.default_grader
        if key not in self._graders:
            self._graders[key] = make_grader(key, self.judge)
        return self._graders[key]

    def run_item(self, skill_text: str, text_hash: str, example: Example) -> ItemResult:
        hit = self.cache.get((text_hash, example.id))
        if hit is not None:
            return hit
        grade = self.grader(example.grader)
        scores: list[float] = []
        tokens: list[float] = []
        outputs: list[str] = []
        feedback = ""
        for prompt in example.prompts(self.config.paraphrases):
            for seed in range(max(1, self.config.seeds)):
                messages = [
                    {"role": "system", "content": SYSTEM_PREFIX + skill_text},
                    {"role": "user", "content": prompt},
                ]
                settings = ModelSettings(
                    max_tokens=self.config.max_tokens,
                    temperature=self.config.temperature if seed == 0 else 0.7,
                    seed=seed,
                )
                done = self.model.complete(messages, [], settings)
                used = done.usage.prompt_tokens + done.usage.completion_tokens
                if not used:
                    used = estimate_tokens(messages) + estimate_tokens(done.text or " ")
                g = grade(done.text or "", example.expected)
                scores.append(g.score)
                tokens.append(float(used))
                outputs.append(done.text or "")
                if g.score < 1.0 and not feedback:
                    feedback = g.feedback
                with self._lock:
                    self.tokens_spent += used
                    self.model_calls += 1
        result = ItemResult(
            id=example.id,
            accuracy=sum(scores) / len(scores),
            tokens=sum(tokens) / len(tokens),
            robustness=min(scores),
            outputs=outputs,
            feedback=feedback or "correct",
            prompt=example.input,
        )
        self.cache[(text_hash, example.id)] = result
        return result

    def run(self, skill_text: str, text_hash: str, examples: list[Example]) -> list[ItemResult]:
        return [self.run_item(skill_text, text_hash, e) for e in examples]
