"""A code skill is kept only from a session that did its task: a verifier's recorded label decides, and without
one the session's own record (no answer, a give-up, a failed last change, no file written, a contradicted claim)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grove.config import Settings
from grove.learning.reviewer_tools import ChangeLog, reviewer_registry
from grove.learning.session_outcome import record_verdict, task_done, undone_reason
from grove.llm.types import Message
from grove.store.sessions import SessionStore
from grove.tools.context import ToolContext

REQUEST = "Add up the 'price' column of data.csv and write the total to total.txt."
SKILL = {
    "name": "sum-csv-column",
    "description": "Total one column of a CSV file.",
    "code": "def solve(path: str, column: str) -> int:\n    return 0\n",
    "tests": "from skill import solve\n\n\ndef test_solve(tmp_path):\n    assert solve('x', 'y') == 0\n",
}


def _call(cid: str, name: str, args: dict) -> Message:
    call = {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    return {"role": "assistant", "content": "", "tool_calls": [call]}


def _result(cid: str, name: str, content: str) -> Message:
    return {"role": "tool", "tool_call_id": cid, "name": name, "content": content}


def done_session() -> list[Message]:
    return [
        {"role": "user", "content": REQUEST},
        _call("c1", "read_file", {"path": "data.csv"}),
        _result("c1", "read_file", "     1|name,price\n     2|a,40\n     3|b,2"),
        _call("c2", "write_file", {"path": "total.txt", "content": "42\n"}),
        _result("c2", "write_file", "Wrote 3 bytes to total.txt"),
        {"role": "assistant", "content": "I wrote the total, 42, to total.txt."},
    ]


FAILED = {
    "no file written": [*done_session()[:3], {"role": "assistant", "content": "Done."}],
    "cut off after a call": done_session()[:5],
    "a give-up": [*done_session()[:3], {"role": "assistant", "content": "I could not parse data.csv."}],
    "last change failed": [
        *done_session()[:4],
        _result("c2", "write_file", "Error: permission denied"),
        {"role": "assistant", "content": "Saved."},
    ],
}


def _session(store: SessionStore, messages: list[Message]) -> str:
    sid = store.create_session("local:tiny", system_prompt="s")
    for m in messages:
        store.add_message(sid, m)
    return sid


def _create(settings: Settings, store: SessionStore, workspace: Path, sid: str, **over: str) -> tuple:
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id="rev")
    log = ChangeLog()
    out = reviewer_registry("skill", log, sid, dry_run=True).call(
        ctx, "skill_code_create", json.dumps({**SKILL, **over})
    )
    return out, log


def test_a_session_that_did_its_task_may_teach_a_code_skill(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    assert undone_reason(done_session()) is None
    out, log = _create(settings, store, workspace, _session(store, done_session()))
    assert out.ok and "would create code skill 'sum-csv-column'" in out.content, out.content
    assert [c["name"] for c in log.changes] == ["sum-csv-column"]


@pytest.mark.parametrize("case", sorted(FAILED))
def test_a_session_whose_record_shows_it_failed_teaches_nothing(
    case: str, settings: Settings, store: SessionStore, workspace: Path
) -> None:
    assert undone_reason(FAILED[case]) is not None
    out, log = _create(settings, store, workspace, _session(store, FAILED[case]))
    assert not out.ok and "did not do its task" in out.content, out.content
    assert log.changes == []


def test_the_verifiers_label_decides_over_the_record(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    failed_by_check = _session(store, done_session())  # looks done, but the check of the files failed
    record_verdict(settings.home, failed_by_check, False, "total.txt holds 41")
    out, log = _create(settings, store, workspace, failed_by_check)
    assert not out.ok and "verifier's label: failed (total.txt holds 41)" in out.content and log.changes == []
    passed = _session(store, FAILED["no file written"])  # e.g. the answer itself was the result
    record_verdict(settings.home, passed, True)
    assert task_done(settings.home, passed, FAILED["no file written"])[0]
    assert _create(settings, store, workspace, passed)[0].ok
