"""A local model's review of a file task: the task written as a code skill (one python block split into code and
tests), kept only when its tests pass in the sandbox, retried with the reason, and not reviewed again once a
tool grove made does the task."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.runtime.review import review_session
from grove.runtime.review_code import CODE_REVIEW_PROMPT, Draft, samples_of, split_reply
from grove.skills.discover import discover
from grove.store.sessions import SessionStore

GOOD = '''Here is the tool:
```python
# name: CSV column total
# description: Add up one column of a CSV file.
import csv

def solve(path: str, column: str) -> int:
    """The total of a column."""
    with open(path, newline="") as f:
        return sum(int(r[column]) for r in csv.DictReader(f))

def test_solve(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("name,amount\\na,2\\nb,3\\n")
    assert solve(str(p), "amount") == 5
```'''
BUGGY = GOOD.replace("== 5", "== 6")


def file_session(
    store: SessionStore, tool: str = "read_file", content: str = "     1|name,amount\n     2|a,4"
) -> str:
    sid = store.create_session("local:tiny", system_prompt="s")
    store.add_message(
        sid, {"role": "user", "content": "Add up the 'amount' column of data.csv into total.txt."}
    )
    call = {"id": "c1", "type": "function", "function": {"name": tool, "arguments": '{"path": "data.csv"}'}}
    store.add_message(sid, {"role": "assistant", "content": "", "tool_calls": [call]})
    store.add_message(sid, {"role": "tool", "tool_call_id": "c1", "name": tool, "content": content})
    # the task asked for a file: a session that did it wrote one (a session that did not is never learned from)
    write = {"path": "total.txt", "content": "4"}
    store.add_message(
        sid, {"role": "assistant", "content": "", "tool_calls": [_call("c2", "write_file", write)]}
    )
    store.add_message(
        sid, {"role": "tool", "tool_call_id": "c2", "name": "write_file", "content": "wrote 1 bytes"}
    )
    store.add_message(sid, {"role": "assistant", "content": "Done."})
    return sid


def _call(call_id: str, name: str, args: dict[str, str]) -> dict[str, object]:
    import json

    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def test_a_reply_splits_into_code_and_tests() -> None:
    draft = split_reply(GOOD, "the request")
    assert isinstance(draft, Draft)
    assert draft.name == "csv-column-total" and draft.description == "Add up one column of a CSV file."
    assert (
        "def solve" in draft.code and "test_solve" not in draft.code and draft.code.startswith("import csv")
    )
    assert draft.tests.startswith("from skill import solve\nimport csv") and "def test_solve" in draft.tests
    assert "def solve" not in draft.tests


def test_a_reply_without_solve_tests_or_valid_code_says_what_is_missing() -> None:
    assert "no top-level `def solve" in str(
        split_reply("```python\ndef run(x: int) -> int:\n    return x\n```", "r")
    )
    assert "there is no test" in str(
        split_reply("```python\ndef solve(x: int) -> int:\n    return x\n```", "r")
    )
    assert "does not parse" in str(split_reply("```python\ndef solve(:\n```", "r"))


def test_a_nameless_reply_is_named_from_its_description() -> None:
    reply = GOOD.replace("# name: CSV column total\n", "")
    draft = split_reply(reply, "r")
    assert isinstance(draft, Draft) and draft.name == "add-up-one-column-of"


def test_samples_are_the_files_read_without_line_numbers(store: SessionStore) -> None:
    sid = file_session(store)
    assert samples_of(store.messages(sid)) == "data.csv:\nname,amount\na,4"


def test_a_file_task_becomes_a_tested_code_skill(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    reviewer = ScriptModel([GOOD], name="local:tiny")
    report = review_session(settings, reviewer, file_session(store), workspace=workspace, store=store)
    assert report.error is None and report.model_calls == 1, report.answer
    assert [c["action"] for c in report.changes] == ["code_create"] and "stored code skill" in report.answer
    messages, tools = reviewer.requests[0]
    assert messages[0]["content"] == CODE_REVIEW_PROMPT and tools == []  # text only: a code block, not a call
    assert "data.csv:\nname,amount\na,4" in messages[-1]["content"]
    assert discover(settings, workspace).get("csv-column") is not None  # "total" is the task's total.txt


def test_a_failing_draft_is_retried_with_the_reason(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    reviewer = ScriptModel([BUGGY, GOOD], name="local:tiny")
    report = review_session(settings, reviewer, file_session(store), workspace=workspace, store=store)
    assert report.model_calls == 2 and [c["action"] for c in report.changes] == ["code_create"]
    retry = reviewer.requests[1][0][-1]["content"]
    assert retry.startswith("That tool was not kept:") and "test_solve" in retry


def test_three_failing_drafts_keep_nothing(settings: Settings, store: SessionStore, workspace: Path) -> None:
    reviewer = ScriptModel([BUGGY, "I cannot.", BUGGY], name="local:tiny")
    report = review_session(settings, reviewer, file_session(store), workspace=workspace, store=store)
    assert report.changes == [] and report.model_calls == 3 and report.answer.startswith("nothing kept")
    assert discover(settings, workspace).get("csv-column") is None


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("wrote the result to total.txt: 9", "did the task"),
        ("Error: skill failed", "was called and failed"),  # the tool exists: a new draft would only repeat it
    ],
)
def test_a_session_that_called_a_learned_tool_is_not_reviewed(
    settings: Settings, store: SessionStore, workspace: Path, content: str, said: str
) -> None:
    first = ScriptModel([GOOD], name="local:tiny")
    review_session(settings, first, file_session(store), workspace=workspace, store=store)
    used = file_session(store, tool="csv-column", content=content)
    reviewer = ScriptModel([], name="local:tiny")
    report = review_session(settings, reviewer, used, workspace=workspace, store=store)
    assert report.model_calls == 0 and reviewer.calls == 0 and report.changes == []
    assert report.answer == f"nothing to keep: a code skill grove made {said}"


def test_an_unfenced_reply_with_a_closing_fence_and_a_test_call_still_splits() -> None:
    reply = (
        "# name: sum-col\n# description: Sum a column.\nimport csv\n\ndef solve(path: str) -> int:\n    return 1\n\n"
        "def test_solve(tmp_path):\n    assert solve('x') == 1\n\ntest_solve(tmp_path)\n"
        "if __name__ == '__main__':\n    test_solve(None)\n```\nThis tool sums a column."
    )
    draft = split_reply(reply, "r")
    assert isinstance(draft, Draft) and draft.name == "sum-col"
    assert "test_solve(tmp_path)\n" not in draft.tests.split("def test_solve(tmp_path):")[1]
    assert "__main__" not in draft.code + draft.tests and "```" not in draft.code + draft.tests


def test_standard_modules_used_but_not_imported_are_imported() -> None:
    reply = (
        "```python\ndef solve(path: str, key: str) -> dict:\n    data = json.loads(Path(path).read_text())\n"
        "    return data\n\ndef test_solve(tmp_path):\n    p = tmp_path / 'c.json'\n    p.write_text('{}')\n"
        "    assert solve(str(p), 'k') == {}\n```"
    )
    draft = split_reply(reply, "r")
    assert isinstance(draft, Draft)
    assert draft.code.startswith("from pathlib import Path\nimport json\n")
    assert "import json" in draft.tests and "os" not in draft.code


def test_a_tool_that_hard_codes_the_tasks_values_is_sent_back() -> None:
    reply = (
        '```python\ndef solve(path: str) -> str:\n    """Rename chk."""\n    text = open(path).read()\n'
        "    return text.replace('chk', 'check')\n\ndef test_solve(tmp_path):\n    p = tmp_path / 't.py'\n"
        "    p.write_text('chk()')\n    assert solve(str(p)) == 'check()'\n```"
    )
    why = split_reply(reply, "Rename the function chk to check in tool.py, including every call.")
    assert isinstance(why, str) and "hard-codes 'check', 'chk'" in why
    general = (
        reply.replace("def solve(path: str)", "def solve(path: str, old: str, new: str)")
        .replace("replace('chk', 'check')", "replace(old, new)")
        .replace("solve(str(p))", "solve(str(p), 'chk', 'check')")
    )
    assert isinstance(split_reply(general, "Rename the function chk to check in tool.py."), Draft)
