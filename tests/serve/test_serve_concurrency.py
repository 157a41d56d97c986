"""Turns run in worker threads: conversations run side by side, one conversation runs one turn at a time in
order, and the event loop keeps answering while a turn waits on its model."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
httpx = pytest.importorskip("httpx")

from tests.serve.conftest import FunctionModel, echo, make_app  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.serve.server import Running, start_in_thread  # noqa: E402


class Gate:
    """A model that holds each call until released, and counts how many run at once."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.entered = threading.Semaphore(0)
        self.release = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]], tools: list[Any]) -> str:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        self.entered.release()
        try:
            assert self.release.wait(10), "never released"
            return echo(messages, tools)
        finally:
            with self.lock:
                self.running -= 1


@pytest.fixture
def gated(settings: Settings) -> Iterator[tuple[Running, str, Gate]]:
    gate = Gate()
    app = make_app(settings, model=FunctionModel(gate))
    key = app.state.grove.keys.add("c")
    running = start_in_thread(app)
    try:
        yield running, key, gate
    finally:
        gate.release.set()
        running.stop()


def _post(running: Running, key: str, conversation: str, text: str, out: dict[str, str]) -> None:
    r = httpx.post(
        f"{running.base_url}/chat/completions",
        json={"model": "grove", "messages": [{"role": "user", "content": text}]},
        headers={"Authorization": f"Bearer {key}", "X-Grove-Conversation": conversation},
        timeout=20,
    )
    assert r.status_code == 200, (r.status_code, r.text)
    out[text] = r.json()["choices"][0]["message"]["content"]


def test_two_conversations_run_at_once_and_the_loop_stays_free(gated: tuple[Running, str, Gate]) -> None:
    running, key, gate = gated
    out: dict[str, str] = {}
    threads = [threading.Thread(target=_post, args=(running, key, c, c, out)) for c in ("a", "b")]
    for t in threads:
        t.start()
    assert gate.entered.acquire(timeout=10) and gate.entered.acquire(timeout=10)  # both inside the model
    assert gate.most == 2
    assert httpx.get(f"http://{running.host}:{running.port}/healthz", timeout=5).json() == {"ok": True}
    gate.release.set()
    for t in threads:
        t.join(20)
    assert out == {"a": "heard 1: a", "b": "heard 1: b"}


def test_one_conversation_runs_one_turn_at_a_time(gated: tuple[Running, str, Gate]) -> None:
    running, key, gate = gated
    out: dict[str, str] = {}
    first = threading.Thread(target=_post, args=(running, key, "same", "one", out))
    first.start()
    assert gate.entered.acquire(timeout=10)
    second = threading.Thread(target=_post, args=(running, key, "same", "two", out))
    second.start()
    # the second turn waits for the first: it does not reach the model while the first is inside
    assert not gate.entered.acquire(timeout=0.3)
    gate.release.set()
    first.join(20)
    second.join(20)
    assert gate.most == 1
    assert out == {"one": "heard 1: one", "two": "heard 2: one | two"}


def test_a_client_history_is_taken_once_when_two_first_turns_race(gated: tuple[Running, str, Gate]) -> None:
    running, key, gate = gated
    out: dict[str, str] = {}
    history = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "ok"}]

    def post(text: str) -> None:
        r = httpx.post(
            f"{running.base_url}/chat/completions",
            json={"model": "grove", "messages": [*history, {"role": "user", "content": text}]},
            headers={"Authorization": f"Bearer {key}", "X-Grove-Conversation": "race"},
            timeout=20,
        )
        assert r.status_code == 200, (r.status_code, r.text)
        out[text] = r.json()["choices"][0]["message"]["content"]

    first = threading.Thread(target=post, args=("one",))
    first.start()
    assert gate.entered.acquire(timeout=10)
    second = threading.Thread(target=post, args=("two",))
    second.start()
    gate.release.set()
    first.join(20)
    second.join(20)
    # the second turn was decided after the first made the session: grove has the history, only "two" is new
    assert out["two"] == "heard 3: earlier | one | two"
