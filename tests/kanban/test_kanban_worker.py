"""Workers and the dispatcher on both backends with the script model: a worker finishes its own task through the
kanban tools, a reclaimed worker's completion is refused, failures trip the breaker, triage tasks are decomposed."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from grove.config import Settings
from grove.kanban.dispatcher import DispatchConfig, Dispatcher
from grove.kanban.leases import Leases
from grove.kanban.model import Claim
from grove.kanban.worker import run_worker
from grove.llm.script import ScriptModel


@pytest.fixture(autouse=True)
def workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "workspaces"
    monkeypatch.setenv("GROVE_KANBAN_WORKSPACES", str(root))
    return root


def work(settings: Settings, board: Leases, task_id: int, steps, fence: int | None = None):
    return run_worker(
        settings,
        board,
        task_id,
        fence=fence,
        model_override=ScriptModel(steps),
        toolsets=["files"],
        review="off",
    )


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_worker_does_its_task_and_completes_it_through_the_tool(
    settings, board: Leases, workspaces: Path
) -> None:
    task = board.add("greet", "write hello.txt")
    result = work(
        settings,
        board,
        task.id,
        [
            call("write_file", path="hello.txt", content="hi\n"),
            call("kanban_complete", summary="wrote it", artifacts=["hello.txt"]),
            "done",
        ],
    )
    assert result.outcome == "done"
    done = board.get(task.id)
    assert (done.status, done.result, done.artifacts) == ("done", "wrote it", ["hello.txt"])
    assert (workspaces / f"task-{task.id}" / "hello.txt").read_text() == "hi\n"


def test_worker_preloads_the_tasks_skills_into_its_prompt(settings, board: Leases) -> None:
    skill = settings.home / "skills" / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Writes release notes. Use for releases.\n---\n\nGroup by kind.\n"
    )
    task = board.add("notes", skills=["release-notes", "no-such-skill"])
    model = ScriptModel(["ok"])
    run_worker(settings, board, task.id, model_override=model, toolsets=[], review="off")
    prompt = model.requests[0][0][1]["content"]
    assert "Group by kind." in prompt and "Skill no-such-skill could not be loaded" in prompt


def test_worker_answer_without_the_tool_becomes_the_summary(settings, board: Leases) -> None:
    task = board.add("answer")
    assert work(settings, board, task.id, ["the answer is 42"]).outcome == "done"
    assert board.get(task.id).result == "the answer is 42"


def test_worker_creates_follow_up_and_comments_on_its_own_task(settings, board: Leases) -> None:
    task = board.add("plan")
    work(
        settings,
        board,
        task.id,
        [
            call("kanban_comment", text="halfway"),
            call("kanban_create", title="follow-up", parents=[task.id]),
            call("kanban_complete", summary="planned"),
            "ok",
        ],
    )
    follow = next(t for t in board.tasks() if t.title == "follow-up")
    assert follow.created_by == task.id and follow.status == "ready"  # its parent is done now
    assert [c.body for c in board.comments(task.id)] == ["halfway"]


def test_reclaimed_worker_cannot_complete(settings, make_board, clock) -> None:
    board = make_board(clock)
    task = board.add("slow")
    claim = board.claim("dispatcher", "h", lease_s=30)
    other = make_board(clock)
    taken: list[Claim] = []

    def steps(messages, tools):
        if len(messages) == 2:  # first call: the worker stalls past its lease and someone else takes the task
            clock.now += 31
            other.reclaim_expired()
            taken.append(other.claim("w2", "h2", lease_s=30))
            return call("kanban_complete", summary="stale result")
        return "stopping"

    result = run_worker(
        settings,
        board,
        task.id,
        fence=claim.fence,
        model_override=ScriptModel(steps),
        toolsets=[],
        review="off",
    )
    assert result.outcome == "lost"
    now = board.get(task.id)
    assert (now.status, now.fence, now.result) == ("running", taken[0].fence, None)
    other.complete(task.id, taken[0].fence, "fresh")
    assert board.get(task.id).result == "fresh"


def test_worker_failures_trip_the_breaker(settings, board: Leases) -> None:
    task = board.add("broken")
    for _ in range(2):
        assert work(settings, board, task.id, [{"error": "bad_request"}]).outcome == "failed"
    blocked = board.get(task.id)
    assert blocked.status == "blocked" and blocked.error.count("scripted bad_request error") == 2


def test_dispatcher_decomposes_triage_promotes_and_spawns(settings, board: Leases) -> None:
    from grove.kanban.decompose import propose_subtasks

    big = board.add("release 1.0", triage=True)
    model = ScriptModel(['Here: [{"title": "changelog", "body": "write it"}, {"title": "tag"}]'])

    def spawn(claim: Claim) -> int:
        board.complete(claim.task.id, claim.fence, f"did {claim.task.title}")
        return 0

    dispatcher = Dispatcher(
        board,
        DispatchConfig(location="-", host="h"),
        spawn=spawn,
        decomposer=lambda t: propose_subtasks(model, t),
    )
    report = dispatcher.tick()
    children = [t for t in board.tasks() if t.created_by == big.id]
    assert report.decomposed == [big.id] and [c.title for c in children] == ["changelog", "tag"]
    assert board.get(big.id).parents == [c.id for c in children]
    # the workers here finish at once, so the task itself is promoted and worked once its children are done
    assert report.spawned == [*(c.id for c in children), big.id] and board.get(big.id).status == "done"
    assert "release 1.0" in model.requests[0][0][0]["content"]


def test_a_failed_decomposition_leaves_the_task_whole(board: Leases) -> None:
    from grove.kanban.decompose import propose_subtasks
    from grove.llm.errors import ErrorKind, ModelError

    big = board.add("big", triage=True)
    model = ScriptModel([ModelError(ErrorKind.BAD_REQUEST, "no", model="script")])
    dispatcher = Dispatcher(
        board,
        DispatchConfig(location="-", host="h"),
        spawn=lambda c: 0,
        decomposer=lambda t: propose_subtasks(model, t),
    )
    assert dispatcher.tick().spawned == [big.id]
    assert "decomposition failed" in board.comments(big.id)[0].body


def test_dispatcher_respects_limits(board: Leases) -> None:
    for i in range(3):
        board.add(f"c{i}", assignee="coder")
    board.add("w", assignee="writer")
    dispatcher = Dispatcher(
        board,
        DispatchConfig(location="-", host="h", max_in_progress=3, per_profile={"coder": 1}),
        spawn=lambda claim: 0,
    )
    spawned = dispatcher.tick().spawned
    assert sorted(board.get(i).assignee for i in spawned) == ["coder", "writer"]
    assert dispatcher.tick().spawned == []  # coder is at its limit


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="crash detection reads /proc")
def test_dispatcher_reclaims_a_dead_workers_task_on_its_host(board: Leases) -> None:
    task = board.add("doomed")
    procs: list[subprocess.Popen] = []

    def spawn(claim: Claim) -> int:
        from grove.kanban.procs import process_start

        proc = subprocess.Popen(["sleep", "60"])
        procs.append(proc)
        board.attach(claim.task.id, claim.fence, proc.pid, process_start(proc.pid))
        return proc.pid

    dispatcher = Dispatcher(board, DispatchConfig(location="-", host=os.uname().nodename), spawn=spawn)
    dispatcher.tick()
    procs[0].kill()
    procs[0].wait()
    report = dispatcher.tick()
    assert report.crashed == [task.id]
    runs = board.runs(task.id)
    assert runs[0].outcome == "reclaimed" and "is gone" in runs[0].error
    assert report.spawned == [task.id]  # and it went back in line at once
    for p in procs:
        p.kill()
        p.wait()


def test_dispatcher_loop_stops_when_asked(board: Leases) -> None:
    stop = threading.Event()
    ticks: list[str] = []

    def on_tick(report) -> None:
        ticks.append(report.line())
        stop.set()

    Dispatcher(board, DispatchConfig(location="-", host="h"), spawn=lambda c: 0).loop(0.1, stop, on_tick)
    assert ticks == ["nothing to do"]


def test_heartbeat_thread_extends_the_lease_and_notices_when_it_is_lost(make_board) -> None:
    from grove.kanban.handle import WorkerHandle
    from grove.kanban.worker import _heartbeat

    board = make_board()  # the real clock: the thread beats every lease/3 seconds
    task = board.add("beating")
    claim = board.claim("w", "h", lease_s=30)
    told: list[bool] = []
    handle = WorkerHandle(board, task.id, claim.fence, "w", lease_s=0.15, on_lost=lambda: told.append(True))
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(handle, stop))
    beat.start()
    while board.get(task.id).lease_expires >= claim.expires:  # the first beat shortens it to 0.15 s ahead
        board.wait(0.05)
    board.reclaim(task.id, claim.fence, "taken away")
    beat.join(timeout=30)
    assert handle.lost and told == [True] and not beat.is_alive()
    stop.set()


INTERRUPTED_WORKER = """
import os, sys, threading, time
from grove.config import Settings
from grove.kanban.sqlite_board import SqliteBoard
from grove.kanban.worker import run_worker
from grove.llm.script import ScriptModel

path = sys.argv[1]
board = SqliteBoard(path)
task = board.add("long")

def steps(messages, tools):
    time.sleep(60)  # a long model call, cut short by the interrupt
    return "finished anyway"

def thief():
    other = SqliteBoard(path)
    while board.get(task.id).lease_pid is None:
        time.sleep(0.05)
    time.sleep(0.3)
    other.reclaim(task.id, other.get(task.id).fence, "taken away")

threading.Thread(target=thief, daemon=True).start()
result = run_worker(Settings(), board, task.id, model_override=ScriptModel(steps), toolsets=[], review="off",
                    lease_s=0.6, interrupt_on_loss=True)
print(result.outcome)
"""


def test_a_lost_lease_interrupts_the_workers_turn(tmp_path: Path, workspaces: Path) -> None:
    import sys

    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_WORKER, str(tmp_path / "board.db")],
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
        env={**os.environ},
    )
    assert done.stdout.strip() == "lost", done.stderr[-2000:]
    from grove.store.sessions import SessionStore

    store = SessionStore.open(Settings().db_path)
    (session,) = store.list_sessions()
    # the model's late reply never entered the conversation: the turn was cut, not finished
    assert not any("finished anyway" in (m.get("content") or "") for m in store.messages(session.id))
    store.db.close()
