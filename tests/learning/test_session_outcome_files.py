"""A session that changed some file but never made the one its task names is not done (the gap a held-out stream
showed: app.ini patched, app.yaml never written, and the session's record let it through)."""

from __future__ import annotations

import json
from typing import Any

from grove.learning.session_outcome import undone_reason


def session(
    request: str, *calls: tuple[str, dict[str, str], str], answer: str = "Done."
) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": request}]
    for i, (name, args, result) in enumerate(calls):
        call = {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": result},
        ]
    return [*messages, {"role": "assistant", "content": answer}]


READ = ("read_file", {"path": "app.ini"}, "[server]\nport = 80")
PATCH = ("patch", {"path": "app.ini", "old_string": "80", "new_string": "81"}, "patched app.ini")
WRITE = (
    "write_file",
    {"path": "conf/app.yaml", "content": "server:\n  port: 80\n"},
    "wrote 20 bytes to conf/app.yaml",
)


def test_the_file_a_task_names_must_be_made_not_another_changed() -> None:
    request = "Convert app.ini to YAML and save it as conf/app.yaml."
    why = undone_reason(session(request, READ, PATCH))
    assert why is not None and "conf/app.yaml" in why
    assert undone_reason(session(request, READ, WRITE)) is None


def test_abbreviations_and_versions_are_no_file_names() -> None:
    request = "Set port to 81 in app.ini, e.g. as in v1.2, i.e. one line."
    assert undone_reason(session(request, READ, PATCH)) is None
