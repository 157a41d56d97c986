"""The `script` model: a deterministic test double driven by queued steps or by a function of the messages.

From Python: ScriptModel([...steps...]) or ScriptModel(fn). From the CLI: `script:<file.yaml>`, a YAML list of
steps, one per model call, each `{text: "..."}` and/or `{tool_calls: [{name: ..., arguments: {...}}]}`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from grove.errors import GroveError
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.estimate import estimate_tokens
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolCall, ToolSchema, Usage

Step = Completion | dict[str, Any] | str | ModelError
StepFunction = Callable[[list[Message], list[ToolSchema]], Step]


def step_to_completion(step: Step, index: int, model: str) -> Completion:
    if isinstance(step, ModelError):
        raise step
    if isinstance(step, Completion):
        return step
    if isinstance(step, str):
        return Completion(text=step, model=model)
    if not isinstance(step, dict):
        raise GroveError(
            f"script step {index} must be a mapping, a string or a Completion, got {type(step).__name__}"
        )
    unknown = set(step) - {"text", "tool_calls", "finish_reason", "error"}
    if unknown:
        raise GroveError(f"script step {index}: unknown keys {sorted(unknown)} (use text, tool_calls, error)")
    if "error" in step:
        kind = ErrorKind(step["error"])
        raise ModelError(kind, f"scripted {kind.value} error", model=model)
    calls = []
    for j, call in enumerate(step.get("tool_calls") or []):
        if "name" not in call:
            raise GroveError(f"script step {index}, tool call {j}: missing 'name'")
        args = call.get("arguments", {})
        raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        calls.append(ToolCall(id=call.get("id") or f"call_{index}_{j}", name=call["name"], arguments=raw))
    finish = step.get("finish_reason") or ("tool_calls" if calls else "stop")
    return Completion(text=step.get("text") or "", tool_calls=calls, finish_reason=finish, model=model)


class ScriptModel:
    """Replays queued steps in order, or asks a function for each reply. Records every request it saw."""

    context_window = 128_000

    def __init__(self, steps: Iterable[Step] | StepFunction, name: str = "script") -> None:
        self.name = name
        self._fn: StepFunction | None = steps if callable(steps) else None
        self._steps: list[Step] = [] if callable(steps) else list(steps)
        self._lock = threading.Lock()
        self.calls = 0
        self.requests: list[tuple[list[Message], list[ToolSchema]]] = []

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptModel:
        import yaml

        p = Path(path).expanduser()
        if not p.is_file():
            raise GroveError(f"script file not found: {p} (model spec is script:<file.yaml>)")
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise GroveError(f"{p}: a script is a YAML list of steps, e.g. - text: Hello")
        model = cls(data, name=f"script:{p}")
        for i, step in enumerate(data):  # validate up front so a typo fails before the run starts
            if not (isinstance(step, dict) and "error" in step):
                step_to_completion(step, i, model.name)
        return model

    def push(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        with self._lock:
            index = self.calls
            self.calls += 1
            self.requests.append(([dict(m) for m in messages], list(tools)))
            if self._fn is not None:
                step = self._fn(messages, tools)
            elif index < len(self._steps):
                step = self._steps[index]
            else:
                raise ModelError(
                    ErrorKind.BAD_REQUEST,
                    f"the script has {len(self._steps)} step(s) and call {index + 1} ran off its end; "
                    "add a step to the script",
                    model=self.name,
                )
        completion = step_to_completion(step, index, self.name)
        if not completion.usage.prompt_tokens:
            completion.usage = Usage(
                prompt_tokens=estimate_tokens(messages) + (estimate_tokens(tools) if tools else 0),
                completion_tokens=estimate_tokens(completion.text) if completion.text else 1,
            )
        if on_text and completion.text:
            on_text(completion.text)
        return completion
