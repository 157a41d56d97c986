"""The acceptance test: the `openai` SDK holds a multi-turn conversation through a real uvicorn server on
127.0.0.1 (script model), streamed and not; the second turn sees the first; a wrong key is refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
openai = pytest.importorskip("openai")

from tests.serve.conftest import make_app  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.serve.server import Running, start_in_thread  # noqa: E402


@pytest.fixture
def server(settings: Settings) -> Iterator[tuple[Running, str]]:
    app = make_app(settings)
    key = app.state.grove.keys.add("sdk")
    running = start_in_thread(app)
    try:
        yield running, key
    finally:
        running.stop()


def _client(running: Running, key: str, conversation: str) -> Any:
    return openai.OpenAI(
        base_url=running.base_url,
        api_key=key,
        max_retries=0,
        default_headers={"X-Grove-Conversation": conversation},
    )


def test_a_conversation_through_the_sdk_remembers(server: tuple[Running, str]) -> None:
    running, key = server
    client = _client(running, key, "sdk-1")
    assert [m.id for m in client.models.list()] == ["grove"]
    messages: list[dict[str, str]] = [{"role": "user", "content": "my name is Ada"}]
    first = client.chat.completions.create(model="grove", messages=messages)  # type: ignore[arg-type]
    assert first.choices[0].message.content == "heard 1: my name is Ada"
    messages += [
        {"role": "assistant", "content": first.choices[0].message.content or ""},
        {"role": "user", "content": "what is my name?"},
    ]
    second = client.chat.completions.create(model="grove", messages=messages)  # type: ignore[arg-type]
    assert second.choices[0].message.content == "heard 2: my name is Ada | what is my name?"


def test_a_streamed_conversation_through_the_sdk(server: tuple[Running, str]) -> None:
    running, key = server
    client = _client(running, key, "sdk-2")

    def turn(text: str) -> str:
        stream = client.chat.completions.create(
            model="grove",
            messages=[{"role": "user", "content": text}],
            stream=True,
        )
        return "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)

    assert turn("first") == "heard 1: first"
    assert turn("second") == "heard 2: first | second"


def test_the_sdk_with_a_wrong_key_gets_401(server: tuple[Running, str]) -> None:
    running, _ = server
    client = _client(running, "gsk_aaaaaaaaaaaa_" + "b" * 43, "x")
    with pytest.raises(openai.AuthenticationError):
        client.chat.completions.create(model="grove", messages=[{"role": "user", "content": "hi"}])
