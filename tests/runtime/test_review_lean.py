"""A local model's skill review of a session that was no file task (file tasks: test_review_code.py): the short
one-question prompt, two tools, a free (text or call) first reply, and the saved steps shown whole in the next local
session's prompt."""

from __future__ import annotations

from pathlib import Path

from grove.agent.prompt import build_system_prompt, lean_tools
from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolSchema
from grove.runtime.review import review_session
from grove.runtime.review_lean import LEAN_SKILL_REVIEW_PROMPT
from grove.store.sessions import SessionStore
from grove.tools.builtin import builtin_registry

STEPS = "---\nname: json-key-edit\ndescription: Set one key of a JSON file.\n---\n1. read_file the file.\n2. patch the key's line.\n"


class Recording(ScriptModel):
    def __init__(self, steps: list, name: str) -> None:
        super().__init__(steps, name=name)
        self.choices: list[str | None] = []

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        self.choices.append(settings.tool_choice)
        return super().complete(messages, tools, settings, on_text)


def session(store: SessionStore) -> str:
    sid = store.create_session("local:tiny", system_prompt="s")
    store.add_message(sid, {"role": "user", "content": 'In config.json set "port" to 9'})
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "session_search", "arguments": '{"query": "port"}'},
    }
    store.add_message(sid, {"role": "assistant", "content": "", "tool_calls": [call]})
    store.add_message(
        sid, {"role": "tool", "tool_call_id": "c1", "name": "session_search", "content": "set port to 9"}
    )
    store.add_message(sid, {"role": "assistant", "content": "Done."})
    return sid


def test_a_local_reviewer_judges_first_then_must_save_the_skill(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    create = {
        "name": "skill_manage",
        "arguments": {"action": "create", "name": "json-key-edit", "content": STEPS},
    }
    reviewer = Recording(["Yes.", {"tool_calls": [create]}, "Saved json-key-edit."], name="local:tiny")
    report = review_session(settings, reviewer, session(store), workspace=workspace, store=store)
    assert report.error is None and [c["action"] for c in report.changes] == ["create"]
    judge, no_tools = reviewer.requests[0]
    assert no_tools == [] and "Answer yes or no." in judge[-1]["content"]
    messages, tools = reviewer.requests[1]
    assert messages[0]["content"] == LEAN_SKILL_REVIEW_PROMPT
    assert sorted(t["function"]["name"] for t in tools) == ["skill_manage", "skill_view"]
    # judged done: the first reply must save the skill, the next is free (text)
    assert reviewer.choices == [None, "skill_manage", "auto"] and report.model_calls == 3
    local = lean_tools(builtin_registry().select(settings.toolsets))
    prompt = build_system_prompt(settings, workspace, local, lean=True)
    assert "### json-key-edit: Set one key of a JSON file." in prompt and "2. patch the key's line." in prompt


def test_a_local_reviewer_that_judges_the_session_failed_changes_nothing(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    reviewer = Recording(["No, the file was not written."], name="local:tiny")
    report = review_session(settings, reviewer, session(store), workspace=workspace, store=store)
    assert report.changes == [] and report.error is None and report.model_calls == 1
    assert report.answer.startswith("nothing to keep") and reviewer.calls == 1


def test_a_local_reviewer_may_leave_out_the_frontmatter(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    from grove.skills.discover import discover

    steps = "1. read_file the file.\n2. patch the key's line."
    create = {
        "name": "skill_manage",
        "arguments": {"action": "create", "name": "json-key-edit", "content": steps},
    }
    reviewer = Recording(["yes", {"tool_calls": [create]}, "Saved."], name="local:tiny")
    report = review_session(settings, reviewer, session(store), workspace=workspace, store=store)
    assert report.error is None and [c["action"] for c in report.changes] == ["create"]
    skill = discover(settings, workspace).get("json-key-edit")
    assert skill is not None and skill.description == "Steps that worked for json key edit tasks."
    assert skill.body.strip() == steps


def test_other_reviewers_keep_the_full_brief_and_tools(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    reviewer = Recording(["Nothing to keep."], name="script")
    review_session(settings, reviewer, session(store), workspace=workspace, store=store)
    messages, tools = reviewer.requests[0]
    assert messages[0]["content"] != LEAN_SKILL_REVIEW_PROMPT
    assert {"memory", "skills_search", "read_file"} <= {t["function"]["name"] for t in tools}
    assert reviewer.choices == [None]
