"""state.db: migrations, messages committed as they happen, search by words, substrings and CJK."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from grove.store.db import Database
from grove.store.migrations import MIGRATIONS
from grove.store.sessions import SessionNotFound, SessionStore


def test_migrations_are_applied_once_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    Database(path).close()
    db = Database(path)  # reopening must not re-run migration 1 (CREATE TABLE would fail)
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_newer_schema_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.close()
    with pytest.raises(RuntimeError, match="upgrade grove"):
        Database(path)


def test_messages_round_trip_with_tool_calls(store: SessionStore) -> None:
    sid = store.create_session("script")
    calls = [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]
    store.add_message(sid, {"role": "user", "content": "hi"})
    store.add_message(sid, {"role": "assistant", "content": None, "tool_calls": calls})
    store.add_message(sid, {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "x"})
    assert store.messages(sid) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "x"},
    ]


def test_committed_messages_are_visible_to_another_connection(store: SessionStore, settings) -> None:
    sid = store.create_session("script")
    store.add_message(sid, {"role": "user", "content": "durable"})
    other = SessionStore.open(settings.db_path)  # as a new process would see it after a crash
    assert other.messages(sid) == [{"role": "user", "content": "durable"}]


def _session_with(store: SessionStore, *texts: str) -> str:
    sid = store.create_session("script")
    for t in texts:
        store.add_message(sid, {"role": "user", "content": t})
    return sid


def test_search_ranks_and_returns_one_hit_per_session(store: SessionStore) -> None:
    a = _session_with(store, "deploy the kubernetes cluster", "kubernetes pods are failing")
    b = _session_with(store, "bake a sourdough bread")
    c = _session_with(store, "a note mentioning kubernetes once")
    hits = store.search("kubernetes")
    assert {h.session_id for h in hits} == {a, c}
    assert len(hits) == 2 and b not in {h.session_id for h in hits}
    assert "[kubernetes]" in hits[0].snippet


def test_search_all_words_first_then_any_word(store: SessionStore) -> None:
    both = _session_with(store, "postgres replication lag")
    one = _session_with(store, "postgres backup")
    hits = store.search("postgres replication")
    assert hits[0].session_id == both
    assert one in {h.session_id for h in hits}  # the OR pass fills in


def test_search_finds_substrings_and_cjk_by_trigram(store: SessionStore) -> None:
    sub = _session_with(store, "the function parse_invoice_total failed")
    cjk = _session_with(store, "我们明天讨论数据库迁移的问题")
    assert store.search("invoice_tot")[0].session_id == sub
    assert store.search("数据库迁移")[0].session_id == cjk


def test_search_ignores_punctuation_only_queries_and_quotes(store: SessionStore) -> None:
    _session_with(store, 'she said "hello" AND left')
    assert store.search("***") == []
    assert store.search('"hello" AND')  # FTS syntax in the query is treated as words, not operators


def test_context_around_a_hit(store: SessionStore) -> None:
    sid = _session_with(store, "one", "two", "needle three", "four", "five", "six")
    hit = store.search("needle")[0]
    assert [m["content"] for m in store.context_around(hit.message_id, 1, 1)] == [
        "two",
        "needle three",
        "four",
    ]
    assert hit.session_id == sid


def test_resolve_id_by_prefix_and_last(store: SessionStore) -> None:
    sid = store.create_session("script")
    assert store.resolve_id(sid[:-2]) == sid
    assert store.resolve_id("last") == sid
    with pytest.raises(SessionNotFound, match="grove sessions list"):
        store.resolve_id("nope")


def test_usage_totals(store: SessionStore) -> None:
    from grove.llm.types import Usage

    sid = store.create_session("script")
    store.add_usage(sid, Usage(10, 2, 4), cost_usd=0.5)
    store.add_usage(sid, Usage(5, 1, 0))
    info = store.get_session(sid)
    assert (info.model_calls, info.prompt_tokens, info.completion_tokens, info.cached_tokens) == (2, 15, 3, 4)
    assert info.cost_usd == 0.5


def test_common_terms_rank_within_the_recent_window(store: SessionStore, monkeypatch) -> None:
    import grove.store.sessions as sessions_module

    monkeypatch.setattr(sessions_module, "RANK_WINDOW", 3)
    old = [_session_with(store, "retry retry retry retry the flaky job") for _ in range(3)]
    recent = [_session_with(store, "one retry here") for _ in range(3)]
    # the old sessions match better, but only the 3 newest matches are ranked for so common a term...
    assert {h.session_id for h in store.search("retry", limit=3)} == set(recent)
    # ...unless the window gives too few hits: then everything is ranked, and relevance puts the old ones first
    hits = store.search("retry", limit=6)
    assert {h.session_id for h in hits} == set(old) | set(recent)
    assert {h.session_id for h in hits[:3]} == set(old)
    monkeypatch.setattr(sessions_module, "RANK_WINDOW", 100)
    assert store.search("retry", limit=1)[0].session_id in old  # with a wide window, relevance wins
