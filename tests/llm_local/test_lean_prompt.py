"""The lean system prompt local models get: shorter identity and guidance, long sections cut, same order."""

from __future__ import annotations

from pathlib import Path

from grove.agent.prompt import build_system_prompt, lean_for
from grove.config import Settings
from grove.tools.builtin import builtin_registry


def test_local_specs_get_the_lean_prompt_and_it_is_shorter(settings: Settings, tmp_path: Path) -> None:
    assert lean_for("local") and lean_for("local:qwen2.5-coder-1.5b")
    assert not lean_for("openai:gpt-5.4-mini") and not lean_for(None)
    (tmp_path / "AGENTS.md").write_text("Use tabs.\n" * 1000)
    tools = builtin_registry().select(settings.toolsets)
    full = build_system_prompt(settings, tmp_path, tools)
    lean = build_system_prompt(settings, tmp_path, tools, lean=True)
    assert "You are grove" in lean and str(tmp_path) in lean
    assert "cut to keep a local model's prompt short" in lean
    assert len(lean) < 2_500 < len(full)
