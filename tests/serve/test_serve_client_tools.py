"""Function tools a client declares: offered to the model beside grove's own, returned as `tool_calls` (chat) or
`function_call` items (responses) for the client to run; its results carry the same turn on, in the same session,
whether the client names the conversation, resends the history or continues a response."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="grove serve needs the serve extra")
pytest.importorskip("openai", reason="responses are checked against the openai SDK's types")

from fastapi.testclient import TestClient
from openai.types.chat import ChatCompletion
from openai.types.responses import Response
from tests.serve.conftest import make_app

from grove.config import Settings
from grove.llm.script import ScriptModel

CHAT_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather at a place",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
RESPONSES_WEATHER = {"type": "function", **CHAT_WEATHER["function"]}


def weather_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    """Calls get_weather when it is offered and the user just spoke; answers from the tool's result after."""
    last = messages[-1]
    if last["role"] == "tool":
        return f"It is {last['content']} there."
    if any(t["function"]["name"] == "get_weather" for t in tools):
        return {
            "text": "",
            "tool_calls": [{"id": "call_w1", "name": "get_weather", "arguments": {"city": "Oslo"}}],
        }
    return "no tools offered"


@pytest.fixture
def setup(settings: Settings) -> Any:
    model = ScriptModel(weather_model, name="script:weather")
    app = make_app(settings, model=model)
    key = app.state.grove.keys.add("tools")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        yield c, model


def test_chat_returns_the_clients_tool_call_and_goes_on_from_its_result(setup: Any) -> None:
    client, model = setup
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Oslo?"}]
    first = client.post(
        "/v1/chat/completions", json={"model": "grove", "messages": messages, "tools": [CHAT_WEATHER]}
    )
    assert first.status_code == 200, first.text
    reply = ChatCompletion.model_validate(first.json())
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    call = choice.message.tool_calls[0]  # type: ignore[index]
    assert call.function.name == "get_weather" and json.loads(call.function.arguments) == {"city": "Oslo"}
    # a stateless client: the whole history again, with its tool's output
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    second = client.post(
        "/v1/chat/completions", json={"model": "grove", "messages": messages, "tools": [CHAT_WEATHER]}
    )
    assert second.status_code == 200, second.text
    assert second.json()["choices"][0]["message"]["content"] == "It is sunny there."
    assert second.json()["choices"][0]["finish_reason"] == "stop"
    assert first.headers["X-Grove-Session"] == second.headers["X-Grove-Session"]
    sent = model.requests[-1][0]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool"]  # each once: nothing pasted twice
    assert sent[-1]["tool_call_id"] == call.id


def test_chat_streams_the_tool_call(setup: Any) -> None:
    client, _ = setup
    body = {"model": "grove", "messages": [{"role": "user", "content": "Weather?"}], "tools": [CHAT_WEATHER]}
    with client.stream("POST", "/v1/chat/completions", json={**body, "stream": True}) as r:
        chunks = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: {")]
    deltas = [c["choices"][0] for c in chunks if c["choices"]]
    calls = [d["delta"]["tool_calls"] for d in deltas if d["delta"].get("tool_calls")]
    assert calls and calls[0][0]["index"] == 0 and calls[0][0]["function"]["name"] == "get_weather"
    assert deltas[-1]["finish_reason"] == "tool_calls"


def test_a_named_conversation_takes_the_result_without_the_history(setup: Any) -> None:
    client, _ = setup
    head = {"X-Grove-Conversation": "weather-1"}
    body = {"model": "grove", "messages": [{"role": "user", "content": "Weather?"}], "tools": [CHAT_WEATHER]}
    call = client.post("/v1/chat/completions", json=body, headers=head).json()["choices"][0]["message"][
        "tool_calls"
    ][0]
    answer = client.post(
        "/v1/chat/completions",
        json={
            "model": "grove",
            "messages": [{"role": "tool", "tool_call_id": call["id"], "content": "cold"}],
        },
        headers=head,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["choices"][0]["message"]["content"] == "It is cold there."


def test_results_for_calls_nobody_made_are_refused(setup: Any) -> None:
    client, _ = setup
    r = client.post(
        "/v1/chat/completions",
        json={"model": "grove", "messages": [{"role": "tool", "tool_call_id": "call_x", "content": "?"}]},
        headers={"X-Grove-Conversation": "never-asked"},
    )
    assert r.status_code == 400 and "call_x" in r.json()["error"]["message"]


def test_a_new_message_instead_of_results_keeps_the_conversation_valid(setup: Any) -> None:
    client, model = setup
    head = {"X-Grove-Conversation": "weather-2"}
    body = {"model": "grove", "messages": [{"role": "user", "content": "Weather?"}], "tools": [CHAT_WEATHER]}
    client.post("/v1/chat/completions", json=body, headers=head)
    r = client.post(
        "/v1/chat/completions",
        json={"model": "grove", "messages": [{"role": "user", "content": "never mind"}]},
        headers=head,
    )
    assert r.status_code == 200, r.text
    sent = model.requests[-1][0]
    answered = [m for m in sent if m["role"] == "tool"]
    assert len(answered) == 1 and answered[0]["tool_call_id"] == "call_w1"  # every call has its result


@pytest.mark.parametrize(
    ("tools", "choice", "why"),
    [
        ([{"type": "function", "function": {"name": "bad name"}}], None, "name"),
        ([{"type": "code_interpreter"}], None, "function tools only"),
        ([CHAT_WEATHER, CHAT_WEATHER], None, "same name"),
        ([CHAT_WEATHER], {"type": "function", "function": {"name": "other"}}, "tool_choice"),
    ],
)
def test_malformed_tools_are_a_clear_400(setup: Any, tools: Any, choice: Any, why: str) -> None:
    client, _ = setup
    body: dict[str, Any] = {"model": "grove", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    if choice is not None:
        body["tool_choice"] = choice
    r = client.post("/v1/chat/completions", json=body)
    assert r.status_code == 400 and why in r.json()["error"]["message"]


def test_a_client_tool_may_not_take_the_name_of_one_of_groves(settings: Settings) -> None:
    from grove.serve.app import ServeOptions, build_app
    from grove.serve.state import ServeState
    from grove.serve.turns import TurnOptions

    turns = TurnOptions(
        toolsets=["todo"], model_override=ScriptModel(weather_model), workspace_root=settings.home.parent
    )
    app = build_app(ServeState(settings), ServeOptions(turns=turns))
    key = app.state.grove.keys.add("clash")
    clash = {"type": "function", "function": {"name": "todo", "parameters": {"type": "object"}}}
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        r = c.post(
            "/v1/chat/completions",
            json={"model": "grove", "messages": [{"role": "user", "content": "hi"}], "tools": [clash]},
        )
    assert r.status_code == 400 and "todo" in r.json()["error"]["message"]


def test_responses_return_a_function_call_and_continue_from_its_output(setup: Any) -> None:
    client, _ = setup
    first = client.post(
        "/v1/responses", json={"model": "grove", "input": "Weather in Oslo?", "tools": [RESPONSES_WEATHER]}
    )
    assert first.status_code == 200, first.text
    response = Response.model_validate(first.json())
    calls = [item for item in response.output if item.type == "function_call"]
    assert (
        len(calls) == 1
        and calls[0].name == "get_weather"
        and json.loads(calls[0].arguments) == {"city": "Oslo"}
    )
    assert response.tools and response.tools[0].name == "get_weather"  # type: ignore[union-attr]
    second = client.post(
        "/v1/responses",
        json={
            "model": "grove",
            "previous_response_id": response.id,
            "input": [{"type": "function_call_output", "call_id": calls[0].call_id, "output": "windy"}],
            "tools": [RESPONSES_WEATHER],
        },
    )
    assert second.status_code == 200, second.text
    assert Response.model_validate(second.json()).output_text == "It is windy there."


def test_responses_stream_the_function_call(setup: Any) -> None:
    client, _ = setup
    body = {"model": "grove", "input": "Weather?", "tools": [RESPONSES_WEATHER], "stream": True}
    with client.stream("POST", "/v1/responses", json=body) as r:
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
    kinds = [e["type"] for e in events]
    assert "response.function_call_arguments.done" in kinds and kinds[-1] == "response.completed"
    final = Response.model_validate(events[-1]["response"])
    assert [item.type for item in final.output] == ["message", "function_call"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_a_hosted_tool_is_refused_by_name(setup: Any) -> None:
    client, _ = setup
    r = client.post(
        "/v1/responses", json={"model": "grove", "input": "hi", "tools": [{"type": "web_search"}]}
    )
    assert r.status_code == 400 and "web_search" in r.json()["error"]["message"]
