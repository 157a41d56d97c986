"""The board on both backends: dependency promotion, the circuit breaker, fencing of stale workers, racing
claims, idempotency, append-only events, decomposition links."""

from __future__ import annotations

import threading

import pytest

from grove.errors import GroveError
from grove.kanban.leases import Leases
from grove.kanban.model import LeaseLost


def test_dependency_promotion_waits_for_every_parent(board: Leases) -> None:
    a, b = board.add("a"), board.add("b")
    child = board.add("child", parents=[a.id, b.id])
    assert (a.status, b.status, child.status) == ("ready", "ready", "todo")
    first = board.claim("w1", "h", task_id=a.id)
    board.complete(a.id, first.fence, "a done")
    assert board.get(child.id).status == "todo"  # b is not done yet
    second = board.claim("w1", "h", task_id=b.id)
    board.complete(b.id, second.fence, "b done")
    assert board.get(child.id).status == "ready"
    assert board.get(child.id).parents == [a.id, b.id]


def test_unknown_parent_is_refused_and_nothing_is_added(board: Leases) -> None:
    with pytest.raises(GroveError, match="no kanban task #99"):
        board.add("orphan", parents=[99])
    assert board.tasks() == []


def test_circuit_breaker_blocks_after_two_failures_in_a_row_with_the_errors(board: Leases) -> None:
    task = board.add("flaky")
    claim = board.claim("w", "h")
    assert board.fail(task.id, claim.fence, "disk full").status == "ready"
    claim = board.claim("w", "h")
    blocked = board.fail(task.id, claim.fence, "disk still full")
    assert blocked.status == "blocked"
    assert "disk full" in blocked.error and "disk still full" in blocked.error
    assert board.claim("w", "h") is None
    assert board.retry(task.id).status == "ready"
    assert board.get(task.id).failures == 0


def test_a_success_resets_the_breaker(board: Leases) -> None:
    a = board.add("a")
    claim = board.claim("w", "h")
    board.fail(a.id, claim.fence, "once")
    claim = board.claim("w", "h")
    assert board.complete(a.id, claim.fence, "fine").failures == 0


def test_stale_worker_cannot_complete_or_change_a_reclaimed_task(board: Leases, clock) -> None:
    task = board.add("slow")
    stale = board.claim("old-worker", "h1", lease_s=30)
    clock.now += 31  # the old worker stopped heartbeating
    assert board.reclaim_expired() == [task.id]
    fresh = board.claim("new-worker", "h2", lease_s=30)
    assert fresh.fence > stale.fence
    for act in (
        lambda: board.complete(task.id, stale.fence, "late result"),
        lambda: board.heartbeat(task.id, stale.fence),
        lambda: board.block(task.id, stale.fence, "stuck"),
        lambda: board.fail(task.id, stale.fence, "x"),
        lambda: board.worker_comment(task.id, stale.fence, "old-worker", "hi"),
        lambda: board.worker_create(task.id, stale.fence, "sub", "", []),
    ):
        with pytest.raises(LeaseLost):
            act()
    done = board.complete(task.id, fresh.fence, "fresh result")
    assert (done.status, done.result) == ("done", "fresh result")
    assert [r.outcome for r in board.runs(task.id)] == ["reclaimed", "done"]
    assert board.comments(task.id) == [] and len(board.tasks()) == 1


def test_an_expired_lease_refuses_writes_even_before_it_is_reclaimed(board: Leases, clock) -> None:
    task = board.add("t")
    claim = board.claim("w", "h", lease_s=10)
    board.heartbeat(task.id, claim.fence, lease_s=10)
    clock.now += 11
    with pytest.raises(LeaseLost, match="expired"):
        board.complete(task.id, claim.fence, "too late")


def test_heartbeat_keeps_a_lease_alive(board: Leases, clock) -> None:
    task = board.add("long")
    claim = board.claim("w", "h", lease_s=10)
    for _ in range(5):
        clock.now += 8
        board.heartbeat(task.id, claim.fence, lease_s=10)
        assert board.reclaim_expired() == []
    assert board.complete(task.id, claim.fence, "ok").status == "done"


def test_two_dispatchers_racing_never_claim_one_task_twice(make_board, backend: str) -> None:
    setup = make_board()
    ids = {setup.add(f"t{i}").id for i in range(40)}
    claimed: dict[str, list[int]] = {"a": [], "b": [], "c": []}
    start = threading.Barrier(len(claimed))

    def dispatcher(name: str) -> None:
        board = make_board()  # its own connection, like another process
        start.wait()
        while (claim := board.claim(name, "h")) is not None:
            claimed[name].append(claim.task.id)

    threads = [threading.Thread(target=dispatcher, args=(n,)) for n in claimed]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    every = [i for got in claimed.values() for i in got]
    assert sorted(every) == sorted(ids)  # each exactly once
    assert len({r.fence for r in setup.runs()}) == 1 and len(setup.runs()) == 40


CLAIMER = """
import sys
from grove.kanban.open import open_board
board = open_board(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()  # start together
while (claim := board.claim(sys.argv[2], "h")) is not None:
    print(claim.task.id, flush=True)
"""


def test_dispatcher_processes_racing_never_claim_one_task_twice(make_board, tmp_path) -> None:
    import subprocess
    import sys

    setup = make_board()
    ids = {setup.add(f"t{i}").id for i in range(60)}
    location = getattr(setup, "url", None) or str(setup.path)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CLAIMER, location, name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("p1", "p2", "p3")
    ]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    got = [int(line) for p in procs for line in p.communicate(timeout=120)[0].split()]
    assert sorted(got) == sorted(ids)


def test_idempotency_key_returns_the_first_task(board: Leases) -> None:
    first = board.add("report", idempotency_key="nightly-2026-11-30")
    again = board.add("report again", idempotency_key="nightly-2026-11-30")
    assert again.id == first.id and len(board.tasks()) == 1


def test_events_are_append_only(board: Leases) -> None:
    board.add("a")
    kinds = [e.kind for e in board.events()]
    assert kinds[:2] == ["created", "promoted"]
    with pytest.raises(Exception, match="append-only"), board.transaction() as tx:
        tx.x("UPDATE kanban_events SET kind = 'forged'")
    assert [e.kind for e in board.events()] == kinds


def test_decompose_links_children_as_parents_of_the_triage_task(board: Leases) -> None:
    big = board.add("ship the release", triage=True)
    assert board.claim("w", "h") is None  # triage is never claimed
    children = board.decompose(big.id, [("write notes", ""), ("tag", "git tag")])
    parent = board.get(big.id)
    assert parent.status == "todo" and parent.parents == [c.id for c in children]
    assert all(c.status == "ready" and c.created_by == big.id for c in children)
    for _ in children:
        claim = board.claim("w", "h")
        board.complete(claim.task.id, claim.fence, "ok")
    assert board.get(big.id).status == "ready"
    assert board.decompose(big.id, [("again", "")]) == []  # only a triage task


def test_archive_and_stats(board: Leases, clock) -> None:
    a = board.add("a")
    claim = board.claim("w", "h")
    clock.now += 5
    board.complete(a.id, claim.fence, "ok")
    stats = board.stats()
    assert stats["counts"]["done"] == 1 and stats["mean_run_s"] == 5.0
    assert board.archive(a.id).status == "archived"
    with pytest.raises(GroveError, match="only blocked"):
        board.retry(board.add("b").id)


def test_stats_count_reclaims_and_throughput(board: Leases, clock) -> None:
    a, b = board.add("a"), board.add("b")
    first = board.claim("w", "h", lease_s=10)
    clock.now += 11
    assert board.reclaim_expired() == [a.id]
    for task in (a, b):
        claim = board.claim("w", "h", task_id=task.id)
        clock.now += 3
        board.complete(task.id, claim.fence, "ok")
    stats = board.stats(window=60)
    assert first is not None and stats["reclaims"] == 1 and stats["failed_runs"] == 1
    assert stats["done_per_min"] == 2.0 and stats["runs"] == 3  # two done in the last minute
    assert board.stats(window=1)["done_per_min"] == 60.0  # one (b) in the last second
