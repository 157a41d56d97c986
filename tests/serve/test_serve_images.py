"""Image input over the API: chat `image_url` parts and Responses `input_image` items reach the model as image
parts of the turn's message (checked like `grove run --image`: type by its bytes, the size cap); a model that
cannot see gets a 400 that says so; a broken image is a 400, never dropped."""

from __future__ import annotations

import base64
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="grove serve needs the serve extra")

from fastapi.testclient import TestClient
from tests.serve.conftest import make_app

from grove.config import Settings
from grove.llm.images import MAX_IMAGE_BYTES, refuse_if_blind
from grove.llm.script import ScriptModel

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def seen_images(model: ScriptModel) -> list[str]:
    last_user = [m for m in model.requests[-1][0] if m["role"] == "user"][-1]
    content = last_user["content"]
    return (
        [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
        if isinstance(content, list)
        else []
    )


@pytest.fixture
def setup(settings: Settings) -> Any:
    model = ScriptModel(lambda messages, tools: "a red dot", name="script:eyes")
    app = make_app(settings, model=model)
    key = app.state.grove.keys.add("eyes")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        yield c, model


def chat(content: Any) -> dict[str, Any]:
    return {"model": "grove", "messages": [{"role": "user", "content": content}]}


def test_a_chat_image_reaches_the_model(setup: Any) -> None:
    client, model = setup
    parts = [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": PNG_URL}}]
    r = client.post("/v1/chat/completions", json=chat(parts))
    assert r.status_code == 200, r.text
    assert seen_images(model) == [PNG_URL]


def test_an_image_alone_is_a_turn_and_an_http_url_is_passed_on(setup: Any) -> None:
    client, model = setup
    url = "https://example.org/cat.png"  # the provider fetches it; grove does not
    r = client.post("/v1/chat/completions", json=chat([{"type": "image_url", "image_url": {"url": url}}]))
    assert r.status_code == 200, r.text
    assert seen_images(model) == [url]


def test_a_responses_input_image_reaches_the_model(setup: Any) -> None:
    client, model = setup
    content = [{"type": "input_text", "text": "what is this?"}, {"type": "input_image", "image_url": PNG_URL}]
    r = client.post("/v1/responses", json={"model": "grove", "input": [{"role": "user", "content": content}]})
    assert r.status_code == 200, r.text
    assert seen_images(model) == [PNG_URL] and r.json()["output_text"] == "a red dot"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("data:image/png;base64,!!!not-base64!!!", "base64"),
        ("data:image/png," + "x" * 10, "data: URL"),
        ("file:///etc/passwd", "data: URL"),
        ("data:image/png;base64," + base64.b64encode(b"GIF? no, text").decode(), "not a PNG"),
        ("data:image/png;base64," + base64.b64encode(PNG + b"\0" * MAX_IMAGE_BYTES).decode(), "capped"),
    ],
)
def test_a_broken_image_is_a_clear_400(setup: Any, url: str, why: str) -> None:
    client, model = setup
    calls = model.calls
    parts = [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": url}}]
    r = client.post("/v1/chat/completions", json=chat(parts))
    assert r.status_code in (400, 413) and why in r.json()["error"]["message"], r.text
    assert model.calls == calls  # nothing went to the model


def test_a_model_that_cannot_see_is_a_400_not_a_model_failure(settings: Settings) -> None:
    class Blind(ScriptModel):
        def complete(self, messages: Any, tools: Any, settings: Any, on_text: Any = None) -> Any:
            refuse_if_blind(messages, False, self.name)  # as the remote and local models do for their profile
            return super().complete(messages, tools, settings, on_text)

    app = make_app(settings, model=Blind(lambda m, t: "?", name="script:blind"))
    key = app.state.grove.keys.add("blind")
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        parts = [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": PNG_URL}}]
        r = c.post("/v1/chat/completions", json=chat(parts))
    assert r.status_code == 400 and "cannot see images" in r.json()["error"]["message"]
