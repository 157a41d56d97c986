"""Board fixtures on both backends: SQLite in a temp state.db, PostgreSQL in a throwaway cluster started once per
session (skipped with the reason when initdb or psycopg is missing), a fresh database per test."""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grove.kanban.leases import Leases
from grove.kanban.pg_cluster import Cluster, find_initdb, start_cluster

_numbers = itertools.count()


class Clock:
    """A hand-moved clock: lease expiry without sleeping."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed (pip install 'grove-agent[postgres]')")
    if find_initdb() is None:
        pytest.skip("PostgreSQL's initdb is not installed (apt-get install postgresql)")
    try:
        cluster = start_cluster()
    except RuntimeError as e:
        pytest.skip(f"no throwaway PostgreSQL cluster: {e}")
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_board(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Leases]]:
    """Boards on one shared store (each its own connection, as separate processes would have)."""
    opened: list[Leases] = []
    if backend == "postgres":
        cluster: Cluster = request.getfixturevalue("pg_cluster")
        url = cluster.create_db(f"kanban_{next(_numbers)}")
    else:
        url = str(tmp_path / "state.db")

    def make(clock: Callable[[], float] | None = None) -> Leases:
        from grove.kanban.open import open_board

        board = open_board(url, clock=clock) if clock else open_board(url)
        opened.append(board)
        return board

    yield make
    for board in opened:
        board.close()


@pytest.fixture
def board(make_board: Callable[..., Leases], clock: Clock) -> Leases:
    return make_board(clock)
