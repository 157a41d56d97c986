"""Photos sent on a platform reach a model that sees as image parts of that turn's user message (checked by fake
OpenAI and Anthropic servers for each API's own format), through Telegram's and WhatsApp's fakes; a model that
cannot see gets none, the photo stays saved in the workspace and the user is told; an image over the cap is not
shown; a model that refuses the picture after all is told to the user with the way on (/new)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("telegram", reason="the [gateways] extra (python-telegram-bot) is not installed")
pytest.importorskip("aiohttp", reason="the [gateways] extra (aiohttp) is not installed")

from tests.fakes.multimodal import FakeVisionAnthropicServer, FakeVisionOpenAIServer, images_in
from tests.fakes.openai_server import FakeReply
from tests.gateway.fakes.runner import running
from tests.gateway.fakes.telegram_server import FakeTelegram
from tests.gateway.fakes.whatsapp_server import APP_SECRET, FakeGraph, deliver, gateway_fields, inbound
from tests.gateway.helpers import bound_port, gateway_on

from grove.gateway.photos import BLIND
from grove.gateway.telegram import TelegramAdapter
from grove.gateway.whatsapp import WhatsAppAdapter
from grove.llm.anthropic_model import AnthropicModel
from grove.llm.images import MAX_IMAGE_BYTES, refuse_if_blind
from grove.llm.openai_compat import OpenAICompatModel
from grove.llm.script import ScriptModel
from grove.llm.types import Completion, Message, ModelSettings, ToolSchema

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()
ALICE, CHAT = 42, 7
ADA = "15551230001"


def last_user_content(messages: list[dict]) -> object:
    return [m for m in messages if m["role"] == "user"][-1]["content"]


def image_urls(content: object) -> list[str]:
    parts = content if isinstance(content, list) else []
    return [p["image_url"]["url"] for p in parts if p.get("type") == "image_url"]


def test_a_telegram_photo_is_an_image_part_of_the_turn(telegram: FakeTelegram, tmp_path: Path) -> None:
    model = ScriptModel(lambda messages, tools: "a red dot")
    gateway = gateway_on(TelegramAdapter, tmp_path, model, owners=[str(ALICE)], base_url=telegram.url)
    with running(gateway):
        telegram.user_sends_photo(CHAT, ALICE, PNG, caption="what is this?")
        telegram.wait_for(lambda c: c.method == "sendMessage" and c.params.get("text") == "a red dot")
        telegram.user_sends_file(CHAT, ALICE, "notes.txt", b"\x89PNG? no, text\n")  # a file is not a photo
        telegram.wait_for(lambda c: c.method == "sendMessage", count=2)
    (photo_turn, _), (file_turn, _) = model.requests
    content = last_user_content(photo_turn)
    assert image_urls(content) == [PNG_URL]
    assert content[0]["type"] == "text" and content[0]["text"].startswith("what is this?")
    assert image_urls(last_user_content(file_turn)) == []
    inbox = tmp_path / "chats" / "telegram" / str(CHAT) / "inbox"
    assert sorted(p.name for p in inbox.iterdir()) == ["notes.txt", "photo-uf1.jpg"]
    assert (inbox / "photo-uf1.jpg").read_bytes() == PNG  # saved as it came; its type read from its bytes


def openai_model(url: str) -> OpenAICompatModel:
    return OpenAICompatModel(name="openai-compat:gpt-4o", model="gpt-4o", base_url=url, transport="http")


def anthropic_model(url: str) -> AnthropicModel:
    return AnthropicModel(name="anthropic:claude-fake", model="claude-fake", api_key="k", base_url=url)


PNG_B64 = base64.b64encode(PNG).decode()


@pytest.mark.parametrize(
    ("server", "make", "sent"),
    [
        (FakeVisionOpenAIServer, openai_model, {"type": "image_url", "image_url": {"url": PNG_URL}}),
        (
            FakeVisionAnthropicServer,
            anthropic_model,
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        ),
    ],
    ids=["openai", "anthropic"],
)
def test_a_whatsapp_image_reaches_a_multimodal_server_in_its_format(
    graph: FakeGraph, tmp_path: Path, server: Any, make: Any, sent: dict[str, Any]
) -> None:
    with server(FakeReply(text="a red dot")) as llm:
        gateway = gateway_on(WhatsAppAdapter, tmp_path, make(llm.url), owners=[ADA], **gateway_fields(graph))
        with running(gateway):
            graph.media["img1"] = ("", PNG)
            image = {"type": "image", "image": {"id": "img1", "mime_type": "image/jpeg", "caption": "see?"}}
            deliver(bound_port(gateway), APP_SECRET, inbound(ADA, "Ada", image))
            graph.wait_for(lambda c: c.method == "text")
        assert graph.texts(ADA) == ["a red dot"]  # the fake answered 400 to any part not in its API's shape
        (part,) = images_in(llm.requests[-1].body)
        part.pop("cache_control", None)
        assert part == sent


def test_a_model_that_cannot_see_gets_no_image_and_the_user_a_note(graph: FakeGraph, tmp_path: Path) -> None:
    with FakeVisionOpenAIServer(FakeReply(text="I read your note.")) as llm:
        blind = OpenAICompatModel(
            name="openai-compat:gpt-3.5-turbo", model="gpt-3.5-turbo", base_url=llm.url, transport="http"
        )
        gateway = gateway_on(WhatsAppAdapter, tmp_path, blind, owners=[ADA], **gateway_fields(graph))
        with running(gateway):
            graph.media["img1"] = ("", PNG)
            image = {"type": "image", "image": {"id": "img1", "mime_type": "image/png", "caption": "see?"}}
            deliver(bound_port(gateway), APP_SECRET, inbound(ADA, "Ada", image))
            graph.wait_for(lambda c: c.method == "text", count=2)
            deliver(
                bound_port(gateway),
                APP_SECRET,
                inbound(ADA, "Ada", {"type": "text", "text": {"body": "and?"}}),
            )
            graph.wait_for(lambda c: c.method == "text", count=3)  # the conversation goes on
        saved = "inbox/image-img1.png"
        assert graph.texts(ADA) == [
            BLIND.format(name="image-img1.png", saved=saved),
            "I read your note.",
            "I read your note.",
        ]
        assert all(images_in(r.body) == [] for r in llm.requests) and len(llm.requests) == 2
        turn = last_user_content(llm.requests[0].body["messages"])
        assert f"saved as {saved}" in str(turn)
    assert (tmp_path / "chats" / "whatsapp" / ADA / saved).read_bytes() == PNG


def test_an_image_over_the_cap_is_saved_not_shown(telegram: FakeTelegram, tmp_path: Path) -> None:
    model = ScriptModel(lambda messages, tools: "ok")
    gateway = gateway_on(TelegramAdapter, tmp_path, model, owners=[str(ALICE)], base_url=telegram.url)
    big = PNG + b"\0" * MAX_IMAGE_BYTES
    with running(gateway):
        telegram.user_sends_photo(CHAT, ALICE, big)
        telegram.wait_for(lambda c: c.method == "sendMessage", count=2)
    assert "over the 5 MB" in telegram.texts_to()[0] and telegram.texts_to()[1] == "ok"
    assert image_urls(last_user_content(model.requests[0][0])) == []
    inbox = tmp_path / "chats" / "telegram" / str(CHAT) / "inbox"
    assert (inbox / "photo-uf1.jpg").stat().st_size == len(big)


class RefusesImages(ScriptModel):
    """A model with no profile (so grove trusts it to see) that refuses images after all, as remote models do."""

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: object = None,
    ) -> Completion:
        refuse_if_blind(messages, False, self.name)
        return super().complete(messages, tools, settings, on_text)  # type: ignore[arg-type]


def test_a_model_that_refuses_the_picture_after_all(telegram: FakeTelegram, tmp_path: Path) -> None:
    model = RefusesImages(lambda messages, tools: "fine")
    gateway = gateway_on(TelegramAdapter, tmp_path, model, owners=[str(ALICE)], base_url=telegram.url)
    with running(gateway):
        telegram.user_sends_photo(CHAT, ALICE, PNG)
        telegram.wait_for(lambda c: c.method == "sendMessage")
        telegram.user_says(CHAT, ALICE, "/new")
        telegram.wait_for(lambda c: c.method == "sendMessage", count=2)
        telegram.user_says(CHAT, ALICE, "hello")
        telegram.wait_for(lambda c: c.method == "sendMessage", count=3)
    refusal, *rest = telegram.texts_to()
    assert refusal.startswith("grove: the model refused the picture (") and "cannot see images" in refusal
    assert "send /new" in refusal
    assert rest == ["New conversation started.", "fine"] and model.calls == 1
    assert (tmp_path / "chats" / "telegram" / str(CHAT) / "inbox" / "photo-uf1.jpg").read_bytes() == PNG
