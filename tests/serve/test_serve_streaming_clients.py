"""Issue 33's acceptance: the openai SDK and a third-party client (simonw's `llm`) hold a streamed multi-turn
conversation through chat completions and through responses on a real server, the first streamed text reaching
the client before the answer is finished (the model waits for the client to see its first word)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
openai = pytest.importorskip("openai")

from tests.serve.conftest import make_app  # noqa: E402
from tests.serve.streamed_model import StreamedEcho  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.serve.server import Running, start_in_thread  # noqa: E402


@pytest.fixture
def served(settings: Settings) -> Iterator[tuple[Running, str, StreamedEcho]]:
    model = StreamedEcho()
    app = make_app(settings, model=model)
    key = app.state.grove.keys.add("clients")
    running = start_in_thread(app)
    try:
        yield running, key, model
    finally:
        running.stop()


def _sdk(running: Running, key: str) -> Any:
    return openai.OpenAI(base_url=running.base_url, api_key=key, max_retries=0)


def test_openai_sdk_streams_a_chat_conversation(served: tuple[Running, str, StreamedEcho]) -> None:
    running, key, model = served
    client = _sdk(running, key)
    messages: list[dict[str, str]] = []
    for text in ("my name is Ada", "what is my name?"):
        messages.append({"role": "user", "content": text})
        parts: list[str] = []
        for chunk in client.chat.completions.create(model="grove", messages=messages, stream=True):  # type: ignore[arg-type]
            delta = chunk.choices[0].delta.content if chunk.choices else None
            if delta:
                if not parts:
                    model.client_saw_text()
                parts.append(delta)
        assert len(parts) > 1  # the answer came in pieces
        messages.append({"role": "assistant", "content": "".join(parts)})
    # stateless: the SDK resent the history; grove continued one session with it, not a pasted transcript
    assert messages[-1]["content"] == "heard 2: my name is Ada | what is my name?"
    assert model.waits == [True, True]


def test_openai_sdk_streams_a_responses_conversation(served: tuple[Running, str, StreamedEcho]) -> None:
    running, key, model = served
    client = _sdk(running, key)
    previous: str | None = None
    answers: list[str] = []
    for text in ("remember 42", "what did I say?"):
        kinds: list[str] = []
        extra = {"previous_response_id": previous} if previous else {}
        with client.responses.stream(model="grove", input=text, **extra) as stream:
            for event in stream:
                kinds.append(event.type)
                if event.type == "response.output_text.delta" and kinds.count(event.type) == 1:
                    model.client_saw_text()
            final = stream.get_final_response()
        assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
        assert kinds.count("response.output_text.delta") > 1
        previous = final.id
        answers.append(final.output_text)
    assert answers[-1] == "heard 2: remember 42 | what did I say?"
    assert client.responses.retrieve(previous).output_text == answers[-1]
    assert model.waits == [True, True]


@pytest.mark.parametrize("responses", [False, True], ids=["chat", "responses"])
def test_llm_cli_library_streams_a_conversation(
    served: tuple[Running, str, StreamedEcho],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    responses: bool,
) -> None:
    """simonw's llm, configured as its docs say for an OpenAI-compatible server (extra-openai-models.yaml);
    it keeps the conversation itself and resends it each turn."""
    running, key, model = served
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm"))
    (tmp_path / "llm").mkdir()
    entry = f"- model_id: grove\n  model_name: grove\n  api_base: {running.base_url}\n  api_key_name: grove\n"
    (tmp_path / "llm" / "extra-openai-models.yaml").write_text(
        entry + ("  responses: true\n" if responses else "")
    )
    llm = pytest.importorskip("llm", reason="the third-party client `llm` is not installed")
    if not hasattr(llm, "get_model"):  # a folder named llm on the path (tests/llm) is not the client
        pytest.skip("the third-party client `llm` is not installed")
    llm.set_key("grove", key) if hasattr(llm, "set_key") else None
    grove_model = llm.get_model("grove")
    grove_model.key = key
    conversation = grove_model.conversation()
    answers = []
    for text in ("my name is Ada", "what is my name?"):
        pieces = []
        for piece in conversation.prompt(text, stream=True):
            if piece and not pieces:
                model.client_saw_text()
            pieces.append(piece)
        assert len([p for p in pieces if p]) > 1
        answers.append("".join(pieces))
    assert answers[-1] == "heard 2: my name is Ada | what is my name?"
    assert model.waits == [True, True]
