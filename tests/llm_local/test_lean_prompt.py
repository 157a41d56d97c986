"""The lean system prompt local models get: shorter identity and guidance, long sections cut, same order."""

from __future__ import annotations

from pathlib import Path

from grove.agent.prompt import build_system_prompt
from grove.config import Settings
from grove.llm.profiles import needs_for
from grove.tools.builtin import builtin_registry


def test_local_specs_get_the_lean_prompt_and_it_is_shorter(settings: Settings, tmp_path: Path) -> None:
    assert needs_for("local").lean and needs_for("local:qwen2.5-coder-1.5b").lean
    assert not needs_for("openai:gpt-5.4-mini").lean and not needs_for(None).lean
    (tmp_path / "AGENTS.md").write_text("Use tabs.\n" * 1000)
    tools = builtin_registry().select(settings.toolsets)
    full = build_system_prompt(settings, tmp_path, tools)
    lean = build_system_prompt(settings, tmp_path, tools, lean=True)
    assert "You are grove" in lean and str(tmp_path) in lean
    assert "cut to keep a local model's prompt short" in lean
    assert len(lean) < 2_500 < len(full)


def test_a_small_library_is_shown_whole_to_a_local_model(settings: Settings, tmp_path: Path) -> None:
    from grove.agent.prompt import lean_tools
    from grove.skills.discover import home_skills_dir
    from grove.skills.manage import SkillManager

    tools = lean_tools(builtin_registry().select(settings.toolsets))
    assert {"memory", "todo", "skill_manage"}.isdisjoint(tools.names()) and tools.get(
        "skill_view"
    ) is not None
    manager = SkillManager(home_skills_dir(settings.home), None, actor="agent")
    steps = "1. read_file the JSON file.\n2. patch the line of the key with its new value.\n"
    manager.create("json-edit", f"---\nname: json-edit\ndescription: Set a key in a JSON file.\n---\n{steps}")
    lean = build_system_prompt(settings, tmp_path, tools, lean=True)
    assert "### json-edit: Set a key in a JSON file." in lean and "patch the line of the key" in lean
    full = build_system_prompt(settings, tmp_path, builtin_registry().select(settings.toolsets))
    assert "json-edit" in full and "patch the line of the key" not in full  # others get the index
    manager.create("big", "---\nname: big\ndescription: A long one.\n---\n" + "step\n" * 400)
    lean = build_system_prompt(settings, tmp_path, tools, lean=True)
    assert "- json-edit" in lean and "patch the line of the key" not in lean  # too long: the index again


def test_a_local_model_sees_memory_without_the_memory_tool(settings: Settings, tmp_path: Path) -> None:
    from grove.agent.prompt import lean_tools
    from grove.memory.files import MemoryFiles

    path = MemoryFiles(settings.home).path("memory")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("Reports go in out/.\n")
    tools = lean_tools(builtin_registry().select(settings.toolsets))
    assert "Reports go in out/." in build_system_prompt(settings, tmp_path, tools, lean=True)


def test_the_default_tiny_model_is_offered_only_tools_that_change_nothing(settings: Settings, store) -> None:  # type: ignore[no-untyped-def]
    from grove.agent.events import AgentEvents
    from grove.runtime.assemble import session_tools
    from grove.runtime.profile import Profile

    for spec in ("local", "local:/models/SmolLM2-135M-Instruct.Q4_1.gguf"):
        assert needs_for(spec).read_only, spec
    assert (
        not needs_for("local:qwen2.5-coder-1.5b").read_only and not needs_for("openai:gpt-5.4-mini").read_only
    )
    profile = Profile(toolsets=["files", "terminal", "skills"])
    tiny = session_tools(settings, profile, store, AgentEvents(), needs_for("local"))
    coder = session_tools(settings, profile, store, AgentEvents(), needs_for("local:qwen2.5-coder-1.5b"))
    assert "read_file" in tiny.names() and not [t.name for t in tiny if t.mutating]
    assert {"write_file", "patch", "terminal"} <= set(coder.names()) - set(tiny.names())
