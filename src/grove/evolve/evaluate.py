"""Run a candidate skill on each item as the agent would, on the original and >= 2 perturbed variants x s seeds.

An episode runner does the work: grove's agent with tools in the sandbox on a workspace built per run (see
grove.runtime.evolve_episode.AgentRunner), or one completion without tools (CompletionRunner) for skills that are
pure instructions. Per item: accuracy = mean grade, tokens = mean tokens per episode, robustness = worst grade over
the variants and seeds. Results are cached by (candidate text hash, item id), so re-scoring costs nothing.
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from grove.evolve.attempt import Attempt, Grader
from grove.evolve.dataset import Example
from grove.evolve.graders import make_grader
from grove.evolve.perturb import Variant, variants
from grove.llm.estimate import estimate_tokens
from grove.llm.types import Model, ModelSettings

SYSTEM_PREFIX = "You are an assistant. Follow this skill exactly when answering.\n\n"


@dataclass
class Episode:
    """One run of the skill on one prompt: the final answer, what it cost, and the tool calls made."""

    answer: str
    tokens: int
    model_calls: int = 1
    tool_calls: list[str] = field(default_factory=list)  # "name(arguments)" summaries, in order


class EpisodeRunner(Protocol):
    name: str

    def __call__(
        self, skill_text: str, prompt: str, workspace: Path | None, settings: ModelSettings
    ) -> Episode: ...


class CompletionRunner:
    """One completion with the skill as system prompt and no tools (skills that are instructions only)."""

    def __init__(self, model: Model) -> None:
        self.model, self.name = model, model.name

    def __call__(
        self, skill_text: str, prompt: str, workspace: Path | None, settings: ModelSettings
    ) -> Episode:
        messages = [
            {"role": "system", "content": SYSTEM_PREFIX + skill_text},
            {"role": "user", "content": prompt},
        ]
        done = self.model.complete(messages, [], settings)
        used = done.usage.prompt_tokens + done.usage.completion_tokens
        if not used:
            used = estimate_tokens(messages) + estimate_tokens(done.text or " ")
        return Episode(done.text or "", used)


@dataclass
class ItemResult:
    id: str
    accuracy: float
    tokens: float
    robustness: float
    outputs: list[str] = field(default_factory=list)
    feedback: str = ""
    prompt: str = ""
    trace: list[str] = field(default_factory=list)  # per episode: variant, grade, tool calls (for reflection)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EvalConfig:
    variants: int = 2  # perturbed variants per item besides the original (paraphrases first, then generated)
    seeds: int = 1  # s: runs per prompt, seeds 0..s-1
    max_tokens: int = 256
    temperature: float = 0.0  # used for seed 0; other seeds run at 0.7
    default_grader: str = "exact"
    allow_unisolated: bool = False  # sandboxed graders may run without isolation (rlimits only)
    dataset_dir: str | None = None  # relative `code:` grader paths are read from here


def build_workspace(root: Path | None, files: dict[str, str]) -> Path:
    """A fresh folder holding the item's files, writable by the sandbox (as root: its group, setgid); in `root`,
    or without one a private folder of its own in the system temp dir."""
    from grove.sandbox import make_scratch

    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
    ws = make_scratch(root, prefix="item-" if root is not None else "grove-evolve-item-")
    for rel, text in files.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if os.geteuid() == 0:  # sandboxed commands and the file tools act as the sandbox group
        for path in ws.rglob("*"):
            os.chown(path, -1, ws.stat().st_gid)
            os.chmod(path, 0o2770 if path.is_dir() else 0o660)
    return ws


def _summary(episode: Episode, limit: int = 6) -> str:
    calls = episode.tool_calls[:limit] + (["..."] if len(episode.tool_calls) > limit else [])
    return "tools: " + (", ".join(calls) if calls else "none")


class Evaluator:
    def __init__(
        self,
        model: Model | None = None,
        config: EvalConfig | None = None,
        judge: Model | None = None,
        runner: EpisodeRunner | None = None,
        work_root: Path | None = None,
    ) -> None:
        if runner is None:
            if model is None:
                raise ValueError("an Evaluator needs a task model or an episode runner")
            runner = CompletionRunner(model)
        self.runner: EpisodeRunner = runner
        self.config = config or EvalConfig()
        self.judge = judge
        self.work_root = work_root
        self._graders: dict[str, Grader] = {}
        self.cache: dict[tuple[str, str], ItemResult] = {}
        self.tokens_spent = 0
        self.model_calls = 0
        self._lock = threading.Lock()

    def grader(self, spec: str | None) -> Grader:
        key = spec or self.config.default_grader
        if key not in self._graders:
            base = Path(self.config.dataset_dir) if self.config.dataset_dir else None
            self._graders[key] = make_grader(
                key, self.judge, base=base, allow_unisolated=self.config.allow_unisolated
            )
        return self._graders[key]

    def _episode(self, skill_text: str, variant: Variant, seed: int, grade: Grader, expected: Any):
        settings = ModelSettings(
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature if seed == 0 else 0.7,
            seed=seed,
        )
        # every episode gets a fresh workspace (empty when the item has none): an agent may write files
        # without a work root each workspace is a private temp folder of its own: a fixed shared one
        # (/tmp/grove-evolve) belonged to whichever user made it first, and no other user could work in it
        ws = build_workspace(self.work_root, variant.files or {})
        try:
            episode = self.runner(skill_text, variant.prompt, ws, settings)
            g = grade(Attempt(episode.answer, ws, tuple(episode.tool_calls)), expected)
        finally:
            shutil.rmtree(ws, ignore_errors=True)
        return episode, g

    def run_item(self, skill_text: str, text_hash: str, example: Example) -> ItemResult:
        hit = self.cache.get((text_hash, example.id))
        if hit is not None:
            return hit
        grade = self.grader(example.grader)
        scores: list[float] = []
        tokens: list[float] = []
        outputs: list[str] = []
        trace: list[str] = []
        feedback = ""
        for variant in variants(example, self.config.variants):
            for seed in range(max(1, self.config.seeds)):
                episode, g = self._episode(skill_text, variant, seed, grade, example.expected)
                scores.append(g.score)
                tokens.append(float(episode.tokens))
                outputs.append(episode.answer)
                trace.append(f"[{variant.label}] score {g.score:g}; {g.feedback}; {_summary(episode)}")
                if g.score < 1.0 and not feedback:
                    feedback = f"[{variant.label}] {g.feedback}; {_summary(episode)}"
                with self._lock:
                    self.tokens_spent += episode.tokens
                    self.model_calls += episode.model_calls
        result = ItemResult(
            id=example.id,
            accuracy=sum(scores) / len(scores),
            tokens=sum(tokens) / len(tokens),
            robustness=min(scores),
            outputs=outputs,
            feedback=feedback or "correct",
            prompt=example.input,
            trace=trace,
        )
        self.cache[(text_hash, example.id)] = result
        return result

    def run(self, skill_text: str, text_hash: str, examples: list[Example]) -> list[ItemResult]:
        return [self.run_item(skill_text, text_hash, e) for e in examples]
