"""Replaying a prose skill's probe on the reviewer's model: an agent opened through the runtime's assembly, in a
throwaway home whose skill library is the user's with the candidate SKILL.md in place (or without the skill,
for the baseline), on a fresh workspace holding the probe's files; no review, no curator, nothing kept after."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grove.learning.checks import failed_checks
from grove.learning.skill_probes import Probe, ProbeRun, ProbeRunner
from grove.llm.types import Model

PROBE_MAX_ITERATIONS = 8  # a probe is one small task: a replay that needs more is a failed one


def _library(home: Path, into: Path, name: str, text: str | None) -> None:
    from grove.atomic_files import atomic_write_text
    from grove.skills.discover import home_skills_dir

    source, target = home_skills_dir(home), home_skills_dir(into)
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".history", ".archive"))
    folder = target / name
    if text is None:
        shutil.rmtree(folder, ignore_errors=True)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / "SKILL.md", text)


def _workspace(probe: Probe) -> Path:
    from grove.atomic_files import atomic_write_text
    from grove.sandbox import make_scratch
    from grove.sandbox.users import sandbox_folder

    ws = make_scratch(prefix="grove-probe-")
    for rel, content in probe.files.items():
        path = (ws / rel).resolve()
        if not path.is_relative_to(ws):
            continue  # a probe's files stay in its workspace
        for parent in reversed(path.relative_to(ws).parents[:-1]):
            sandbox_folder(ws / parent)
        atomic_write_text(path, content, mode=0o664)
    return ws


def probe_runner(settings: Any, model: Model, max_iterations: int = PROBE_MAX_ITERATIONS) -> ProbeRunner:
    """A runner for grove.learning.reviewer_tools: each call replays one probe and checks its result."""
    from grove.runtime.assemble import open_agent, open_store
    from grove.runtime.profile import Profile

    def run(name: str, text: str | None, probe: Probe) -> ProbeRun:
        home = Path(tempfile.mkdtemp(prefix="grove-probe-home-"))
        ws = _workspace(probe)
        try:
            _library(settings.home, home, name, text)
            probe_settings = dataclasses.replace(settings, home=home)
            profile = Profile(
                source="probe",
                model=model,
                workspace=ws,
                approver=None,
                review="off",
                max_iterations=max_iterations,
                title=f"probe of {name}",
            )
            # an agent, not a Session: a replay has no after-turn loops (review, grades, failure notes) to run
            store = open_store(probe_settings)
            agent = open_agent(probe_settings, profile, None, store)
            try:
                result = agent.run_turn(probe.task)
            finally:
                agent.close()
                store.db.close()
            failures = failed_checks(probe.checks, ws, result.answer)
            return ProbeRun(not failures, "; ".join(failures) or "ok", result.model_calls)
        finally:
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(ws, ignore_errors=True)

    return run


def probes_for(settings: Any) -> Callable[[Model], ProbeRunner] | None:
    """What the curator replays merges with (learning.skill_probes), or None when probes are off."""
    from grove.config.learning import learning_config

    if not learning_config(settings).skill_probes:
        return None
    return lambda model: probe_runner(settings, model)
