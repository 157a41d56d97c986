"""The grove adapter for gepa: evaluate a sectioned skill with the task model, build the reflective dataset, and
propose one-section mutations (deterministic operators, or the reflective one) on a schedule keyed by iteration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from grove.evolve.candidate import candidate_id, from_candidate, join_body
from grove.evolve.dataset import Example
from grove.evolve.evaluate import Evaluator
from grove.evolve.operators import add_worked_examples, drop_section, shorten_section
from grove.evolve.reflective import reflect
from grove.llm.types import Model

if TYPE_CHECKING:
    from gepa.core.adapter import ProposalFn

OPERATORS = ("examples", "shorten", "drop", "reflect")


def plugin_mutations_named(names: set[str]) -> dict[str, Any]:
    from grove.evolve.plugins import plugin_mutations

    found = {c.plugin.name: c.fn for c in plugin_mutations(OPERATORS) if c.fn is not None}
    return {name: fn for name, fn in found.items() if name in names}


class Schedule:
    """Shared between the component selector and the proposer: which iteration, which operator."""

    def __init__(self, operators: Sequence[str]) -> None:
        extra = set(operators) - set(OPERATORS)
        # operators from plugins (entry-point group grove.mutations), loaded only when one is asked for
        self.plugins = plugin_mutations_named(extra) if extra else {}
        unknown = extra - set(self.plugins)
        if unknown or not operators:
            known = (*OPERATORS, *self.plugins)
            raise ValueError(
                f"operators must be among {known} or a grove.mutations plugin, got {list(operators)}"
            )
        self.operators = list(operators)
        self.iteration = 0

    @property
    def operator(self) -> str:
        return self.operators[self.iteration % len(self.operators)]


class GroveAdapter:
    # gepa looks for this attribute; we use custom_candidate_proposer instead
    propose_new_texts: ProposalFn | None = None

    def __init__(
        self,
        head: str,
        evaluator: Evaluator,
        examples: dict[str, Example],
        schedule: Schedule,
        max_body_bytes: int,
        reflection_model: Model | None = None,
    ) -> None:
        self.head = head
        self.evaluator = evaluator
        self.examples = examples
        self.schedule = schedule
        self.max_body_bytes = max_body_bytes
        self.reflection_model = reflection_model
        self.log: list[dict[str, Any]] = []

    # -- gepa adapter protocol ----------------------------------------------------------------------------------
    def evaluate(self, batch: list[Example], candidate: dict[str, str], capture_traces: bool = False) -> Any:
        from gepa.core.adapter import EvaluationBatch

        text = from_candidate(self.head, candidate)
        results = self.evaluator.run(text, candidate_id(candidate), batch)
        return EvaluationBatch(
            outputs=[r.as_dict() for r in results],
            scores=[r.accuracy for r in results],
            trajectories=[r.as_dict() for r in results] if capture_traces else None,
            objective_scores=[
                {"accuracy": r.accuracy, "tokens": r.tokens, "robustness": r.robustness} for r in results
            ],
        )

    def make_reflective_dataset(
        self, candidate: dict[str, str], eval_batch: Any, components_to_update: list[str]
    ) -> Mapping[str, Sequence[Mapping[str, Any]]]:
        records = [
            {
                "Inputs": t["prompt"],
                # what the agent did on each variant (grade, feedback, tool calls), not only its first answer
                "Generated Outputs": "\n".join(t.get("trace") or t["outputs"][:1]),
                "Feedback": t["feedback"],
                "Expected": self.examples[t["id"]].expected,
                "score": t["accuracy"],
            }
            for t in eval_batch.trajectories or []
        ]
        return {c: records for c in components_to_update}

    def get_adapter_state(self) -> dict[str, Any]:
        return {"tokens_spent": self.evaluator.tokens_spent, "model_calls": self.evaluator.model_calls}

    def set_adapter_state(self, state: dict[str, Any]) -> None:
        self.evaluator.tokens_spent = int(state.get("tokens_spent", 0))
        self.evaluator.model_calls = int(state.get("model_calls", 0))

    # -- proposals ----------------------------------------------------------------------------------------------
    def propose(
        self,
        candidate: dict[str, str],
        reflective_dataset: Mapping[str, Sequence[Mapping[str, Any]]],
        components_to_update: list[str],
    ) -> dict[str, str]:
        op = self.schedule.operator
        key = components_to_update[0]
        records = reflective_dataset.get(key, [])
        room = self.max_body_bytes - len(join_body(candidate).encode())
        section = candidate[key]
        new: str | None = None
        if not section:
            pass  # a dropped section stays dropped (writing into it would lose its heading)
        elif op == "examples":
            new = add_worked_examples(section, records, room)
        elif op == "shorten":
            new = shorten_section(section)
        elif op == "drop":
            new = drop_section(key, section)
        elif op in self.schedule.plugins:
            try:
                new = self.schedule.plugins[op](key, section, records, room)
            except Exception:  # a plugin's failure is its proposal's, not the run's
                new = None
        elif op == "reflect" and self.reflection_model is not None:
            budget = len(section.encode()) + max(0, room)
            new = reflect(
                self.reflection_model, from_candidate(self.head, candidate), key, section, records, budget
            )
        self.log.append(
            {
                "iteration": self.schedule.iteration,
                "operator": op,
                "section": key,
                "changed": new is not None and new != section,  # "" (a dropped section) is a change
            }
        )
        return {key: new} if new is not None and new != section else {}
