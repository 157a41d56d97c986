"""A learned skill's name says its kind of task, never one instance's values: a code skill's name is derived
without them (or sent back when too little is left), a prose skill named after them is refused."""

from __future__ import annotations

import json
from pathlib import Path

from test_code_skill_gate import SKILL, _session, done_session

from grove.config import Settings
from grove.learning.reviewer_tools import ChangeLog, reviewer_registry
from grove.learning.skill_names import kind_name, task_values, values_in_name
from grove.store.sessions import SessionStore
from grove.tools.context import ToolContext


def test_the_tasks_values_are_found_in_a_name() -> None:
    ask = 'In config.json set "workers" to 12; rename the constant MAX_RETRIES to RETRY_LIMIT in pkg/ (add_tax).'
    values = task_values(ask)
    assert {
        ("config",),
        ("workers",),
        ("12",),
        ("max", "retries"),
        ("retry", "limit"),
        ("add", "tax"),
    } <= set(values)
    assert values_in_name("set-config-workers", ask) == ["config", "workers"]
    assert values_in_name("rename-max-retries", ask) == ["max-retries"]
    assert values_in_name("set-port-to-12", ask) == ["12"]
    assert values_in_name("set-json-key", ask) == []  # the format (an extension) is the kind, not a value
    assert values_in_name("rename-constant", ask) == []


def test_a_name_without_the_values_keeps_what_the_tool_does() -> None:
    ask = "Clean people.tsv: drop the rows whose 'email' is empty, write people_clean.tsv."
    assert kind_name("clean-people-tsv", ask) == "clean-tsv"
    assert kind_name("drop-empty-email-rows", ask) == "drop-empty-rows"
    assert kind_name("people-email", ask) is None  # nothing of the kind is left


def test_a_code_skill_is_kept_under_its_kinds_name(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    sid = _session(store, done_session())  # asked: the 'price' column of data.csv into total.txt
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id="rev")
    log = ChangeLog()
    tools = reviewer_registry("skill", log, sid, dry_run=True)
    out = tools.call(ctx, "skill_code_create", json.dumps({**SKILL, "name": "sum-price-column-to-total-txt"}))
    assert out.ok and "'sum-column-to-txt'" in out.content, out.content
    assert [c["name"] for c in log.changes] == ["sum-column-to-txt"]
    out = tools.call(ctx, "skill_code_create", json.dumps({**SKILL, "name": "price-total"}))
    assert not out.ok and "carries this task's own value(s) 'price', 'total'" in out.content, out.content


def test_a_prose_skill_named_after_the_task_is_sent_back(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    sid = _session(store, done_session())
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id="rev")
    log = ChangeLog()
    tools = reviewer_registry("skill", log, sid, dry_run=True)
    body = "---\nname: {0}\ndescription: Total a CSV column into a file.\n---\n1. read it\n"
    out = tools.call(
        ctx,
        "skill_manage",
        json.dumps({"action": "create", "name": "data-csv-total", "content": body.format("x")}),
    )
    assert not out.ok and "'data'" in out.content and log.changes == []
    out = tools.call(
        ctx,
        "skill_manage",
        json.dumps({"action": "create", "name": "csv-sums", "content": body.format("csv-sums")}),
    )
    assert out.ok, out.content
