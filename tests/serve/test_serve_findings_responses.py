"""Issue 33's findings about the Responses API, one test each: exact `previous_response_id` chains, streaming
events, full bodies, retrieve and delete, file input said rather than ignored."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="grove serve needs the serve extra")

from fastapi.testclient import TestClient


def respond(client: TestClient, text: str, **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/responses", json={"model": "grove", "input": text, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def test_continuing_an_older_response_does_not_see_the_turns_after_it(client: TestClient) -> None:
    first = respond(client, "one")
    second = respond(client, "two", previous_response_id=first["id"])
    assert second["output_text"] == "heard 2: one | two"
    branch = respond(client, "three", previous_response_id=first["id"])
    assert branch["output_text"] == "heard 2: one | three"  # "two" came after `first`: not in this chain
    assert (
        respond(client, "four", previous_response_id=second["id"])["output_text"]
        == "heard 3: one | two | four"
    )
    assert respond(client, "five", previous_response_id=branch["id"])["output_text"] == (
        "heard 3: one | three | five"
    )


def test_stream_true_sends_the_specs_events_in_order(client: TestClient) -> None:
    with client.stream("POST", "/v1/responses", json={"model": "grove", "input": "hi", "stream": True}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
    kinds = [e["type"] for e in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert text == "heard 1: hi" == events[-1]["response"]["output_text"]


def test_a_response_body_has_every_field_the_spec_requires(client: TestClient) -> None:
    openai = pytest.importorskip("openai", reason="the field list is the openai SDK's Response model")
    from openai.types.responses import Response

    body = respond(client, "hi")
    required = {name for name, field in Response.model_fields.items() if field.is_required()}
    assert required - set(body) == set()
    Response.model_validate(body)
    assert openai  # the SDK's own model reads the body


def test_a_response_can_be_retrieved_and_deleted(client: TestClient) -> None:
    body = respond(client, "hi")
    assert client.get(f"/v1/responses/{body['id']}").json()["output_text"] == "heard 1: hi"
    assert client.delete(f"/v1/responses/{body['id']}").json()["deleted"] is True
    assert client.get(f"/v1/responses/{body['id']}").status_code == 404
    r = client.post(
        "/v1/responses", json={"model": "grove", "input": "x", "previous_response_id": body["id"]}
    )
    assert r.status_code == 404


def test_another_keys_response_cannot_be_read(app: Any, client: TestClient) -> None:
    body = respond(client, "mine")
    other = app.state.grove.keys.add("other")
    with TestClient(app, headers={"Authorization": f"Bearer {other}"}) as c:
        assert c.get(f"/v1/responses/{body['id']}").status_code == 404


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tool_choice", "required"),
        ("text", {"format": {"type": "json_schema", "name": "x", "schema": {}}}),
    ],
)
def test_fields_grove_cannot_honour_are_refused_not_ignored(
    client: TestClient, field: str, value: Any
) -> None:
    r = client.post("/v1/responses", json={"model": "grove", "input": "hi", field: value})
    assert r.status_code == 400 and r.json()["error"]["param"] == field


def test_input_file_is_refused_not_dropped(client: TestClient) -> None:
    content = [
        {"type": "input_text", "text": "what is this?"},
        {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
    ]
    r = client.post("/v1/responses", json={"model": "grove", "input": [{"role": "user", "content": content}]})
    assert r.status_code == 400 and "input_file" in r.json()["error"]["message"]


def test_a_stateless_history_in_input_continues_the_session(client: TestClient) -> None:
    first = respond(client, "one")
    history = [
        {"role": "user", "content": "one"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": first["output_text"]}],
        },
        {"role": "user", "content": "two"},
    ]
    r = client.post("/v1/responses", json={"model": "grove", "input": history})
    assert r.json()["output_text"] == "heard 2: one | two"
