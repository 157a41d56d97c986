"""The reviewer's tool set and the rules enforced in code: which tools, no archiving, dry runs write nothing."""

from __future__ import annotations

import json
from pathlib import Path

from grove.config import Settings
from grove.learning.reviewer_tools import ChangeLog, reviewer_registry
from grove.memory.files import MemoryFiles
from grove.skills.discover import discover, home_skills_dir
from grove.skills.manage import SkillManager
from grove.store.sessions import SessionStore
from grove.tools.context import ToolContext

SKILL = (
    "---\nname: keep-me\ndescription: Back up the notes folder to a dated tarball.\n---\n# Steps\n1. tar it\n"
)


def test_only_the_allowed_tools_per_review_kind() -> None:
    log = ChangeLog()
    assert reviewer_registry("skill", log, "s").names() == [
        "skill_view",
        "skills_search",
        "skill_manage",
        "memory",
        "read_file",
        "session_search",
        "skill_code_create",
    ]
    assert reviewer_registry("memory", log, "s").names() == ["memory", "read_file", "session_search"]


def test_no_archiving_and_a_dry_run_writes_nothing(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    SkillManager(home_skills_dir(settings.home), store.db, actor="user").create("keep-me", SKILL)
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id="rev")
    log = ChangeLog()
    tools = reviewer_registry("skill", log, "src", dry_run=True)
    out = tools.call(ctx, "skill_manage", json.dumps({"action": "delete", "name": "keep-me"}))
    assert not out.ok and "does not archive" in out.content
    tools.call(ctx, "skill_view", json.dumps({"name": "keep-me"}))
    patch = {"action": "patch", "name": "keep-me", "old_string": "1. tar it", "new_string": "1. tar -czf it"}
    out = tools.call(ctx, "skill_manage", json.dumps(patch))
    assert out.ok and out.content.startswith("[dry run]")
    out = tools.call(ctx, "memory", json.dumps({"action": "add", "target": "user", "content": "likes tar"}))
    assert out.ok and out.content.startswith("[dry run]")
    assert "1. tar it" in discover(settings, workspace).skills["keep-me"].body
    assert MemoryFiles(settings.home).entries("user") == []
    assert [(c["kind"], c["applied"]) for c in log.changes] == [("skill", False), ("memory", False)]
    assert log.changes[1]["operations"][0]["content"] == "likes tar"
