"""Board-wide limits on both backends: dispatchers of different hosts racing to fill their slots never have more
than `board_max_in_progress` tasks running on the whole board (nor more than a profile's board-wide limit)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from grove.kanban.dispatcher import DispatchConfig, Dispatcher
from grove.kanban.leases import Leases
from grove.kanban.model import Claim


def _race(
    make_board: Callable[..., Leases], config: Callable[[str], DispatchConfig], rounds: int, finish: int
) -> tuple[list[int], list[int]]:
    """Two dispatchers (own connections, like two hosts) tick together `rounds` times; after each round `finish`
    running tasks complete. Returns the running counts sampled inside every spawn and after every round."""
    setup = make_board()
    sampled: list[int] = []
    after_round: list[int] = []
    lock = threading.Lock()

    def spawn(claim: Claim) -> int:
        # Sampled while this claim is committed and running: the board's count at that instant.
        with lock:
            sampled.append(len(setup.running()))
        return 0

    go = threading.Barrier(2)
    done = threading.Barrier(2)

    def host(name: str) -> None:
        board = make_board()
        dispatcher = Dispatcher(board, config(name), spawn=spawn)
        for _ in range(rounds):
            go.wait(timeout=60)
            dispatcher.tick()
            if done.wait(timeout=60) == 0:  # one thread finishes some work between rounds
                running = setup.running()
                after_round.append(len(running))
                for task in running[:finish]:
                    setup.complete(task.id, task.fence, "ok")

    threads = [threading.Thread(target=host, args=(n,)) for n in ("host-a", "host-b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return sampled, after_round


def test_two_dispatchers_racing_never_run_more_than_the_board_limit(make_board) -> None:
    setup = make_board()
    for i in range(30):
        setup.add(f"t{i}")

    def config(host: str) -> DispatchConfig:
        return DispatchConfig(location="-", host=host, max_in_progress=3, board_max_in_progress=4)

    sampled, after_round = _race(make_board, config, rounds=6, finish=2)
    assert sampled and max(sampled) <= 4
    assert max(after_round) == 4  # the board does fill up to the limit (each host alone would allow 3 + 3)
    hosts = {r.host for r in setup.runs()}
    assert hosts == {"host-a", "host-b"}  # work split between them


def test_board_wide_limit_per_profile(make_board) -> None:
    setup = make_board()
    for i in range(10):
        setup.add(f"c{i}", assignee="coder")
    for i in range(10):
        setup.add(f"w{i}", assignee="writer", priority=-1)

    def config(host: str) -> DispatchConfig:
        return DispatchConfig(location="-", host=host, max_in_progress=3, board_per_profile={"coder": 1})

    _race(make_board, config, rounds=4, finish=0)
    running = setup.running()
    assert [t.assignee for t in running].count("coder") == 1  # two hosts, one coder at a time board-wide
    assert len(running) == 6  # the rest of both hosts' slots went to writers


def test_without_board_limits_each_host_fills_its_own_slots(make_board) -> None:
    # The check above can fail: per-host limits alone let two hosts run 3 + 3.
    setup = make_board()
    for i in range(10):
        setup.add(f"t{i}")

    def config(host: str) -> DispatchConfig:
        return DispatchConfig(location="-", host=host, max_in_progress=3)

    _race(make_board, config, rounds=1, finish=0)
    assert len(setup.running()) == 6
