"""Code skills inside the wider skills library: signatures in the index, no untested code changes via skill_manage."""

from __future__ import annotations

from pathlib import Path

from codekit import AVG_CODE, AVG_TESTS

from grove.config import Settings
from grove.skills.index import skills_index_text
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext


def test_index_shows_the_signature_and_skill_manage_cannot_bypass_the_tests(tmp_path: Path) -> None:
    settings = Settings()
    ctx = ToolContext(workspace=tmp_path, settings=settings)
    reg = builtin_registry().select(["skills", "code_skills"])
    created = reg.call(
        ctx,
        "skill_code_create",
        {
            "name": "moving-average",
            "description": "Moving average of a list.",
            "code": AVG_CODE,
            "tests": AVG_TESTS,
        },
    )
    assert created.ok, created.content
    index = skills_index_text(settings, tmp_path)
    assert "- moving-average(values: list[float], window: int = 7) -> list[float]: Moving average" in index

    code_file = settings.home / "skills" / "moving-average" / "scripts" / "skill.py"
    before = code_file.read_bytes()
    for args in (
        {
            "action": "write_file",
            "file_path": "scripts/skill.py",
            "file_content": "def solve():\n    return 0\n",
        },
        {"action": "patch", "file_path": "scripts/test_skill.py", "old_string": "def", "new_string": "def"},
        {"action": "edit", "content": "---\nname: moving-average\ndescription: x\n---\n"},
    ):
        refused = reg.call(ctx, "skill_manage", {"name": "moving-average", **args})
        assert not refused.ok and "skill_code_patch" in refused.content
    assert code_file.read_bytes() == before
    # documentation of a code skill is still patchable the ordinary way
    doc = reg.call(
        ctx,
        "skill_manage",
        {
            "action": "patch",
            "name": "moving-average",
            "old_string": "description: Moving average",
            "new_string": "description: Rolling mean",
        },
    )
    assert doc.ok, doc.content
