"""Evolution's episode runner: a candidate skill run as grove's agent runs it, a Session with the skill loaded, the
chosen tools, commands in the sandbox, on the item's own workspace, up to a turn's iterations. It lives in runtime
because evolve sits below runtime in the layer order; evolve only sees the EpisodeRunner protocol."""

from __future__ import annotations

import dataclasses
import json
import tempfile
import threading
from pathlib import Path

from grove.agent.prompt import build_system_prompt
from grove.config import Settings
from grove.evolve.evaluate import Episode
from grove.llm.profiles import needs_for
from grove.llm.types import Model, ModelSettings
from grove.runtime.profile import Profile
from grove.runtime.session import Session
from grove.store.sessions import SessionStore
from grove.tools.builtin import builtin_registry

DEFAULT_TOOLSETS = ("files", "terminal")
SKILL_BLOCK = "\n\n# Skill in use\nThe skill below is loaded for this task (as skill_view would show it). Follow it.\n\n"


def _brief(arguments: object, limit: int = 200) -> str:
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError:
        args = arguments
    if isinstance(args, dict) and len(args) == 1:
        args = next(iter(args.values()))
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class AgentRunner:
    """Episodes on grove's agent. Its own GROVE_HOME (`home`): no user memory, skills or sessions leak into an
    evaluation, and its sessions stay out of the user's history. Approvals are off (nobody is there to answer)
    but the sandbox holds: commands see only the item's scratch workspace, without network; without isolation
    they are refused unless `allow_unisolated`."""

    def __init__(
        self,
        settings: Settings,
        model: Model,
        *,
        home: Path | None = None,
        toolsets: tuple[str, ...] = DEFAULT_TOOLSETS,
        max_iterations: int = 12,
        allow_unisolated: bool = False,
        lean: bool | None = None,
    ) -> None:
        self.model = model
        self.name = model.name
        self.toolsets = list(toolsets)
        self.max_iterations = max_iterations
        self.allow_unisolated = allow_unisolated
        # the prompt style episodes run with: the model's own (what it gets in a session), unless asked for
        self.lean = needs_for(model.name).lean if lean is None else lean
        home = Path(home) if home is not None else Path(tempfile.mkdtemp(prefix="grove-evolve-home-"))
        security = dataclasses.replace(settings.security, network=False)
        self.settings = dataclasses.replace(settings, home=home, security=security, toolsets=self.toolsets)
        self._store: SessionStore | None = None
        self._lock = threading.Lock()

    def _open_store(self) -> SessionStore:
        if self._store is None:
            self.settings.home.mkdir(parents=True, exist_ok=True)
            self._store = SessionStore.open(self.settings.db_path)
        return self._store

    def __call__(
        self, skill_text: str, prompt: str, workspace: Path | None, settings: ModelSettings
    ) -> Episode:
        with self._lock:  # one store, one episode at a time
            return self._run(skill_text, prompt, workspace, settings)

    def _run(self, skill_text: str, prompt: str, workspace: Path | None, settings: ModelSettings) -> Episode:
        ws = workspace or Path(tempfile.mkdtemp(prefix="grove-evolve-ws-"))
        tools = builtin_registry().select(self.toolsets)
        system = build_system_prompt(self.settings, ws, tools, lean=self.lean) + SKILL_BLOCK + skill_text
        profile = Profile(
            source="evolve",
            toolsets=[],
            tools=tools,  # the chosen toolsets' built-in tools, as the prompt above names them
            system_prompt=system,
            workspace=ws,
            allow_terminal="terminal" in self.toolsets,
            yolo=True,
            allow_unisolated=self.allow_unisolated,
            max_iterations=self.max_iterations,
            model=self.model,
            review="off",
        )
        session = Session.open(self.settings, profile, store=self._open_store())
        try:
            session.agent.settings = dataclasses.replace(
                session.agent.settings,
                max_tokens=settings.max_tokens,
                temperature=settings.temperature,
                seed=settings.seed,
            )
            result = session.run_turn(prompt)
        finally:
            session.close()
        calls = [f"{c.name}({_brief(c.arguments)})" + ("" if c.ok else " failed") for c in result.tool_calls]
        used = result.usage.prompt_tokens + result.usage.completion_tokens
        return Episode(result.answer, used, result.model_calls, calls)
