"""The pieces of compression on their own: placeholders, head/tail split, skeleton facts, the summary budget."""

from __future__ import annotations

import json

from grove.context.prune import PLACEHOLDER_PREFIX, prune_tool_results
from grove.context.settings import CompressionSettings
from grove.context.skeleton import Skeleton
from grove.context.split import split_conversation
from grove.context.summary import SUMMARY_MARKER, render, transcript
from grove.llm.types import Message


def call(cid: str, name: str, **args: object) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def conversation(turns: int) -> list[Message]:
    out: list[Message] = []
    for t in range(turns):
        out.append({"role": "user", "content": f"turn {t}: look at module_{t}.py"})
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    call(f"a{t}", "read_file", path=f"module_{t}.py"),
                    call(f"b{t}", "search_files", pattern="x"),
                ],
            }
        )
        out.append({"role": "tool", "tool_call_id": f"a{t}", "name": "read_file", "content": "x" * 900})
        out.append({"role": "tool", "tool_call_id": f"b{t}", "name": "search_files", "content": "no matches"})
        out.append({"role": "assistant", "content": f"module_{t}.py looks fine"})
    return out


def test_placeholder_says_tool_arguments_and_size_and_leaves_short_results() -> None:
    msgs = conversation(2)
    pruned, changed = prune_tool_results(msgs, range(len(msgs)), 200)
    assert changed == [2, 7]
    text = pruned[2]["content"]
    assert text.startswith(PLACEHOLDER_PREFIX)
    assert "read_file(" in text and "module_0.py" in text and "900 chars" in text
    assert pruned[3]["content"] == "no matches"  # short results stay
    assert msgs[2]["content"] == "x" * 900  # the input is not modified
    again, changed_again = prune_tool_results(pruned, range(len(pruned)), 200)
    assert changed_again == [] and again == pruned


def test_split_never_separates_a_tool_call_from_its_results() -> None:
    msgs = conversation(6)
    for tail_tokens in range(1, 3000, 37):
        for head in range(0, 6):
            s = split_conversation(msgs, head, tail_tokens)
            assert 0 <= s.head_end <= s.tail_start <= len(msgs)
            for boundary in (s.head_end, s.tail_start):
                if boundary < len(msgs):
                    assert msgs[boundary]["role"] != "tool", (head, tail_tokens, boundary)
    # the head is extended over the results of a call it contains
    assert split_conversation(msgs, 2, 100).head_end == 4


def test_split_keeps_the_last_message_even_when_it_is_larger_than_the_tail_budget() -> None:
    msgs = [*conversation(3), {"role": "user", "content": "y" * 10_000}]
    s = split_conversation(msgs, 2, 10)
    assert s.tail_start == len(msgs) - 1


def test_skeleton_collects_files_commands_exit_codes_errors_todo_and_goals() -> None:
    msgs: list[Message] = [
        {"role": "user", "content": "Migrate the billing service to Postgres 16"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                call("1", "read_file", path="billing/db.py"),
                call("2", "write_file", path="billing/pg.py", content="..."),
                call("3", "terminal", command="pytest -q billing"),
                call("4", "todo", items=[{"content": "port queries", "status": "in_progress"}]),
            ],
        },
        {"role": "tool", "tool_call_id": "1", "name": "read_file", "content": "1|import sqlite3"},
        {"role": "tool", "tool_call_id": "2", "name": "write_file", "content": "wrote 3 bytes"},
        {
            "role": "tool",
            "tool_call_id": "3",
            "name": "terminal",
            "content": "exit=1\nE   AssertionError: 3 != 4",
        },
        {"role": "tool", "tool_call_id": "4", "name": "todo", "content": "[~] port queries"},
    ]
    sk = Skeleton()
    sk.add_messages(msgs)
    assert sk.ledger.requests == ["Migrate the billing service to Postgres 16"]
    assert sk.files_read == ["billing/db.py"] and sk.files_written == ["billing/pg.py"]
    assert sk.commands == ["pytest -q billing -> exit 1"]
    assert sk.errors and "AssertionError: 3 != 4" in sk.errors[0]
    assert sk.todo == [{"content": "port queries", "status": "in_progress"}]
    restored = Skeleton.from_json(sk.to_json())
    assert restored == sk
    text = restored.render()
    for fact in ("billing/db.py", "billing/pg.py", "exit 1", "[~] port queries", "Postgres 16"):
        assert fact in text


def test_summary_budget_is_a_fifth_within_bounds_and_never_more_than_the_text_replaced() -> None:
    cfg = CompressionSettings()
    assert cfg.summary_budget(50_000) == 10_000
    assert cfg.summary_budget(5_000) == 2_000
    assert cfg.summary_budget(1_000_000) == 12_000
    assert cfg.summary_budget(800) == 800


def test_summary_message_is_marked_as_reference_and_transcript_skips_old_summaries() -> None:
    text = render("## Goal\nship it", "## Facts recorded by grove", note=None, current_request=None)
    assert text.startswith(SUMMARY_MARKER) and "reference material" in text and "latest user message" in text
    pending = render(None, "facts", note="the summary call failed", current_request="fix bug 42")
    assert "No model summary: the summary call failed" in pending and pending.rstrip().endswith(
        "[end of compressed context]"
    )
    assert "fix bug 42" in pending
    t = transcript([{"role": "user", "content": text}, {"role": "user", "content": "hello"}], 10_000)
    assert t == "USER: hello"


def test_transcript_shortens_tool_results_before_cutting_the_conversation() -> None:
    msgs = conversation(20)
    msgs[40]["content"] = "Decision: keep LMDB for the cache"  # an assistant answer deep in the middle
    full = transcript(msgs, 1_000_000)
    tight = transcript(msgs, len(full) // 3)
    assert len(tight) <= len(full) // 3 and "Decision: keep LMDB" in tight and "omitted" not in tight
    tiny = transcript(msgs, 2_000)
    assert len(tiny) <= 2_100 and "chars omitted" in tiny
