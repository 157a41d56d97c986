"""Fixtures for grove serve: an app on a script model that echoes what it has heard, and a client key."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.llm.types import Completion, Usage

# fastapi is imported inside the fixtures: on a base install the test modules skip (importorskip) and this
# conftest, which also sits over tests/serve/dashboard, must still import


def echo(messages: list[dict[str, Any]], tools: list[Any]) -> str:
    """Answers with the user's words so far, so a test sees what the session remembers."""
    said = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
    return f"heard {len(said)}: " + " | ".join(s.replace("\n", " ") for s in said)


class FunctionModel:
    """A model answering with `fn(messages, tools)`, without ScriptModel's lock and request log, so calls can
    run side by side (ScriptModel answers one call at a time)."""

    name = "script:function"
    context_window = 128_000

    def __init__(self, fn: Callable[[list[dict[str, Any]], list[Any]], str]) -> None:
        self.fn = fn

    def complete(
        self, messages: list[dict[str, Any]], tools: list[Any], settings: Any, on_text: Any = None
    ) -> Completion:
        text = self.fn(messages, tools)
        if on_text:
            on_text(text)
        return Completion(text=text, model=self.name, usage=Usage(len(messages), 1))


def make_app(
    settings: Settings, *, rate: float = 6000, burst: int = 1000, model: Any = None, **kw: Any
) -> Any:
    from grove.serve.app import ServeOptions, build_app
    from grove.serve.state import ServeState
    from grove.serve.turns import TurnOptions

    options = ServeOptions(
        rate_per_minute=rate,
        burst=burst,
        turns=TurnOptions(
            toolsets=[],
            model_override=model or ScriptModel(echo, name="script:echo"),
            workspace_root=settings.home.parent / "serve-ws",
        ),
        **kw,
    )
    return build_app(ServeState(settings), options)


@pytest.fixture
def app(settings: Settings) -> Any:
    return make_app(settings)


@pytest.fixture
def key(app: Any) -> str:
    return app.state.grove.keys.add("tester")


@pytest.fixture
def client(app: Any, key: str) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        yield c
