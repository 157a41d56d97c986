"""The system prompt, assembled once at session start and then kept byte-identical (prefix caches depend on it).

Order: identity -> tool guidance -> memory and user profile (frozen) -> skills index -> project context -> date.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from grove.llm.profiles import SMALL_LOCAL, SMALL_MODEL_SKIP_TOOLS

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.tools.registry import ToolRegistry

IDENTITY = (
    "You are grove, a capable assistant that works in the user's terminal. Answer directly and concisely. "
    "Be accurate; say so when you are unsure."
)
TOOL_GUIDANCE = (
    "Use tools only when the task needs them (files, commands); answer plain questions directly. "
    "Read before you edit; prefer `patch` for small changes. Paths are relative to the workspace: {workspace}."
)
# The lean style (ModelNeeds.prompt, small local models): a 1.5B model on 2 cores reads ~25-140 prompt
# tokens/s, so every section is short.
LEAN_IDENTITY = "You are grove, an assistant in the user's terminal. Answer briefly and accurately."
LEAN_TOOL_GUIDANCE = (
    "You see files, skills and past sessions only through tools: to answer about them, call the tool first "
    "(search_files finds text in many files). To change a file: read it, then patch the exact old text "
    "(replace_all to change every occurrence). To make a file from others: read them, work out the result "
    "yourself, then write_file only that result. Otherwise answer directly. Paths are relative to {workspace}."
)
LEAN_SECTION_CHARS = 1_500
LEAN_SKILLS_HEADER = (
    "## Skills\nWhat worked before on tasks like these; when one fits the task, follow its steps."
)
# the tools a small model is not offered (why: grove.llm.profiles)
LEAN_SKIP_TOOLS = SMALL_MODEL_SKIP_TOOLS
PROJECT_FILES = ("AGENTS.md", "GROVE.md")
MAX_PROJECT_CHARS = 12_000


def lean_tools(tools: ToolRegistry) -> ToolRegistry:
    """The tools of a small local model's session (benchmarks, tests): those of the toolsets minus the
    rarely-needed, easily confused ones. Sessions get this from their ModelNeeds (grove.runtime.assemble)."""
    return tools.without(SMALL_LOCAL.skip_tools)


def build_system_prompt(settings: Settings, workspace: Path, tools: ToolRegistry, lean: bool = False) -> str:
    parts = [LEAN_IDENTITY if lean else IDENTITY]
    if len(tools):
        parts.append((LEAN_TOOL_GUIDANCE if lean else TOOL_GUIDANCE).format(workspace=workspace))
    sections = (
        _memory_block(settings, tools, lean),
        _skills_index(settings, workspace, tools, lean),
        _project_context(workspace),
    )
    for section in sections:
        if section and lean and len(section) > LEAN_SECTION_CHARS:
            section = section[:LEAN_SECTION_CHARS] + "\n[... cut to keep a local model's prompt short]"
        if section:
            parts.append(section.strip())
    parts.append(f"Today is {time.strftime('%Y-%m-%d')}.")
    return "\n\n".join(parts)


def _memory_block(settings: Settings, tools: ToolRegistry, lean: bool = False) -> str:
    if tools.get("memory") is None and not (lean and len(tools)):
        # memory is frozen into the prompt only for sessions that can also keep it up to date (a local model's
        # session is kept up to date by its reviewer, which has the memory tool)
        return ""
    from grove.memory.prompt import memory_prompt_block

    return memory_prompt_block(settings)


def _skills_index(settings: Settings, workspace: Path, tools: ToolRegistry, lean: bool = False) -> str:
    if tools.get("skill_view") is None:
        return ""  # without the skills tools an index would only cost tokens
    try:
        from grove.skills.index import skills_index_text
    except ImportError:
        return ""
    if lean:
        shown = _lean_skills(settings, workspace)
        if shown:
            return shown
    return skills_index_text(settings, workspace)


def _lean_skills(settings: Settings, workspace: Path) -> str:
    """A small library shown whole (each skill's steps, not only its name): a 1.5B model rarely loads a skill
    with skill_view, and one call less per task is what a learned procedure should save. '' when it does not
    fit LEAN_SECTION_CHARS, and the index is shown instead."""
    from grove.security.injection.scan import screen
    from grove.skills.code_meta import is_code_skill
    from grove.skills.discover import discover
    from grove.skills.stale import stale_names

    hidden = stale_names(settings)
    # code skills are left out: grove's own are tools of the session (tools/learned.py), and a local session has
    # no skill_run for the others
    skills = [
        s
        for s in discover(settings, workspace).sorted()
        if s.name not in hidden and not is_code_skill(s.metadata)
    ]
    if not skills:
        return ""
    parts = [LEAN_SKILLS_HEADER]
    size = len(LEAN_SKILLS_HEADER)
    for skill in skills:
        if size + len(skill.body) > LEAN_SECTION_CHARS:
            return ""  # it cannot fit: stop before screening the rest of a big library
        body = screen(skill.body.strip(), source=f"skill {skill.name}")
        parts.append(f"### {skill.name}: {skill.description.strip()}\n{body}")
        size += len(parts[-1]) + 2  # as joined below
    return "\n\n".join(parts) if size <= LEAN_SECTION_CHARS else ""


def _project_context(workspace: Path) -> str:
    for name in PROJECT_FILES:
        path = workspace / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if len(text) > MAX_PROJECT_CHARS:
                text = text[:MAX_PROJECT_CHARS] + f"\n[... {name} cut at {MAX_PROJECT_CHARS} characters]"
            from grove.security.injection.scan import screen

            text = screen(text, source=name)  # a cloned repo's AGENTS.md is not the user speaking
            return f"Project instructions from {name} (the user's project; follow them):\n\n{text}"
    return ""
