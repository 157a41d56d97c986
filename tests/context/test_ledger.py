"""The fact ledger: assistant decisions, tool-result values, every user request and constraint survive compression;
a model summary is checked against the ledger and completed where it misses."""

from __future__ import annotations

import json
from pathlib import Path

from grove.context.check import check_summary, completed
from grove.context.compressor import Compressor
from grove.context.skeleton import Skeleton
from grove.context.summary import SUMMARY_MARKER
from grove.llm.script import ScriptModel
from grove.llm.types import Message
from grove.store.sessions import SessionStore


def call(cid: str, name: str, **args: object) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def tool_turn(cid: str, name: str, args: dict, result: str) -> list[Message]:
    return [
        {"role": "assistant", "content": None, "tool_calls": [call(cid, name, **args)]},
        {"role": "tool", "tool_call_id": cid, "name": name, "content": result},
    ]


CODE = "\n".join(
    f"{i + 1:>6}|{ln}"
    for i, ln in enumerate(
        [
            "import logging",
            "SHARD_COUNT = 73  # after the March incident",
            "def sync(rows):",
            "    delay = 30",
            "    return rows",
        ]
    )
)
CONFIG = "cache:\n  ttl_seconds: 2711\n  backend: lmdb\nworkers: 12\n"
METRICS = "exit=0\nrunning load test\nthroughput: 1843 req/s\np99_latency_ms: 231\n"
FAILURE = "exit=1\nTraceback (most recent call last):\n  File \"a.py\", line 3\nKeyError: 'tenant_id'\n1 failed, 40 passed in 2.1s"


def session() -> list[Message]:
    msgs: list[Message] = [
        {"role": "user", "content": "Port the ledger to LMDB. Never touch the production database."}
    ]
    msgs += tool_turn("1", "read_file", {"path": "billing/shards.py"}, CODE)
    msgs += tool_turn("2", "read_file", {"path": "config/cache.yaml"}, CONFIG)
    msgs += tool_turn("3", "terminal", {"command": "python bench/load.py"}, METRICS)
    msgs += tool_turn("4", "terminal", {"command": "pytest -q"}, FAILURE)
    msgs.append(
        {
            "role": "assistant",
            "content": "Let me look at the cache next. Going with the outbox table for refunds — nothing calls "
            "Stripe directly any more. The p95 latency dropped to 212 ms after the index.",
        }
    )
    return msgs


def test_assistant_decisions_findings_and_tool_result_values_are_in_the_facts() -> None:
    sk = Skeleton()
    sk.add_messages(session())
    text = sk.render()
    assert "Going with the outbox table for refunds — nothing calls Stripe directly any more." in text
    assert "The p95 latency dropped to 212 ms after the index." in text
    assert "Let me look at the cache next" not in text  # narration is not a fact
    assert "SHARD_COUNT = 73" in text and "billing/shards.py" in text
    assert "delay = 30" not in text  # a local variable in code is not a fact
    assert "cache.ttl_seconds" not in text and "ttl_seconds: 2711" in text
    assert "throughput: 1843 req/s" in text and "p99_latency_ms: 231" in text
    assert "KeyError: 'tenant_id'" in text and "1 failed, 40 passed" in text
    assert "Never touch the production database." in text


def test_every_user_request_of_a_long_session_is_kept() -> None:
    sk = Skeleton()
    sk.add_messages(
        [{"role": "user", "content": f"request number {i}: refactor module_{i}"} for i in range(60)]
    )
    text = sk.render()
    assert all(f"request number {i}: refactor module_{i}" in text for i in range(60))


def test_a_constraint_after_a_pasted_log_is_kept_even_under_a_tiny_budget() -> None:
    log = "\n".join(f"2026-03-01T10:{i:02d}:00Z INFO batch {i} done in {i * 7} ms" for i in range(40))
    rule = "Whatever you do, don't restart the primary during business hours."
    sk = Skeleton()
    sk.add_messages([{"role": "user", "content": f"Here is the log:\n{log}\nLooks fine. {rule}"}])
    sk.add_messages(
        [
            {"role": "assistant", "content": f"We decided to use LMDB instead of Redis, call {i}."}
            for i in range(50)
        ]
    )
    text = sk.render(budget_tokens=200)
    assert rule in text
    assert "batch 30 done" not in text  # the pasted middle is not carried as a request
    assert len(text) < 2_000  # decisions were shed to fit, the constraint was not


def test_a_value_read_again_shows_the_latest_with_the_earlier_noted() -> None:
    sk = Skeleton()
    sk.add_messages(tool_turn("1", "read_file", {"path": "s.py"}, "SHARD_COUNT = 64"))
    sk.add_messages(tool_turn("2", "read_file", {"path": "s.py"}, "SHARD_COUNT = 73"))
    assert "SHARD_COUNT = 73 (earlier: SHARD_COUNT = 64)" in sk.render()


def test_the_ledger_survives_the_json_record_and_reads_old_records() -> None:
    sk = Skeleton()
    sk.add_messages(session())
    assert Skeleton.from_json(sk.to_json()) == sk
    old = Skeleton.from_json(json.dumps({"goals": ["first request"], "files_read": ["a.py"]}))
    assert old.ledger.requests == ["first request"] and "first request" in old.render()


def test_check_flags_a_wrong_value_and_completes_what_the_summary_missed() -> None:
    sk = Skeleton()
    sk.add_messages(session())
    summary = "## Progress\n- SHARD_COUNT is 64 now\n- The p95 latency dropped to 212 ms after the index."
    check = check_summary(summary, sk)
    assert any("SHARD_COUNT" in c and "'64'" in c and "SHARD_COUNT = 73" in c for c in check.conflicts)
    body, facts = completed(summary, sk, 10_000)
    assert "## Corrections" in body
    assert "Going with the outbox table" in facts  # missed by the summary: added
    assert "The p95 latency dropped to 212 ms" not in facts  # stated verbatim by the summary: not repeated
    assert "Never touch the production database." in facts  # constraints always


def test_compression_with_a_model_summary_carries_the_checked_and_completed_facts(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "state.db")
    sid = store.create_session("m", system_prompt="SYS")
    msgs = session() * 1
    for i in range(12):  # enough later turns to push the facts out of the protected tail
        msgs += [{"role": "user", "content": f"continue {i}"}, {"role": "assistant", "content": "ok " * 300}]
    for m in msgs:
        store.add_message(sid, m)
    summariser = ScriptModel(
        lambda m, t: "## Goal\nport the ledger\n## Progress\n- SHARD_COUNT = 64", name="s"
    )
    agent_model = ScriptModel(["unused"])
    agent_model.context_window = 8_000
    compressor = Compressor(agent_model, store, sid, summarizer=summariser)  # type: ignore[arg-type]
    live = compressor.compress([{"role": "system", "content": "SYS"}, *store.messages(sid)], "manual")
    text = next(str(m["content"]) for m in live if str(m.get("content") or "").startswith(SUMMARY_MARKER))
    assert "port the ledger" in text  # the model's narrative
    assert "Corrections" in text and "SHARD_COUNT = 73" in text  # its wrong value corrected
    for fact in (
        "Going with the outbox table",
        "ttl_seconds: 2711",
        "throughput: 1843",
        "production database",
    ):
        assert fact in text
    assert len(store.messages(sid, active_only=False)) == len(msgs) + 1  # nothing lost from state.db
    store.db.close()


def test_the_budget_is_used_but_not_exceeded_when_values_are_grouped_by_source() -> None:
    sk = Skeleton()
    for f in range(30):
        config = "\n".join(f"key_{f}_{k}: {1000 + k}" for k in range(20))
        sk.add_messages(tool_turn(str(f), "read_file", {"path": f"config/service_{f}.yaml"}, config))
    for budget in (300, 1_000, 2_000):
        text = sk.ledger.render(budget)
        assert 0.8 * budget * 4 <= len(text) <= budget * 4 + 200, (budget, len(text))
        assert "key_29_19: 1019" in text and "key_0_0: 1000" not in text  # the oldest go first


def test_when_requests_must_shrink_every_constraint_in_them_is_still_listed() -> None:
    sk = Skeleton()
    sk.add_messages(
        [
            {
                "role": "user",
                "content": f"Step {i} of the port is next. Keep worker_{i} under {i + 5} seconds. Thanks.",
            }
            for i in range(120)
        ]
    )
    text = sk.render(budget_tokens=500)
    assert "Keep worker_0 under 5 seconds." in text and "Step 0 of the port is next." in text
    assert all(f"Keep worker_{i} under {i + 5} seconds." in text for i in range(120))
    assert (
        "Thanks." not in text.split("User constraints")[0].splitlines()[1]
    )  # the oldest request was shortened


def test_a_file_value_the_conversation_named_outlives_newer_unnamed_ones() -> None:
    sk = Skeleton()
    sk.add_messages(tool_turn("0", "read_file", {"path": "config/queue.yaml"}, "drain_seconds: 4473"))
    for f in range(1, 30):
        config = "\n".join(f"key_{f}_{k}: {1000 + k}" for k in range(20))
        sk.add_messages(tool_turn(str(f), "read_file", {"path": f"config/service_{f}.yaml"}, config))
    assert "drain_seconds: 4473" not in sk.ledger.render(400)  # oldest and unnamed: shed first
    sk.add_messages([{"role": "user", "content": "Is drain_seconds long enough for the batch?"}])
    text = sk.ledger.render(400)
    assert "drain_seconds: 4473" in text and "key_1_0: 1000" not in text
