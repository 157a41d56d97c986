"""Fake multimodal servers on 127.0.0.1: the OpenAI and Anthropic fakes, refusing (400) any image part whose shape
is not exactly what that provider's API documents, so a test fails on the wrong format."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Handler

MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _data_ok(data: Any) -> bool:
    try:
        return isinstance(data, str) and bool(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return False


def openai_part_problem(part: Any) -> str | None:
    """Chat completions: {"type": "text", "text"} or {"type": "image_url", "image_url": {"url", "detail"?}}."""
    if not isinstance(part, dict):
        return "a content part must be an object"
    if part.get("type") == "text":
        return (
            None
            if isinstance(part.get("text"), str) and set(part) <= {"type", "text", "cache_control"}
            else "bad text part"
        )
    if part.get("type") != "image_url":
        return f"unknown content part type {part.get('type')!r}"
    image = part.get("image_url")
    if (
        set(part) != {"type", "image_url"}
        or not isinstance(image, dict)
        or not set(image) <= {"url", "detail"}
    ):
        return "image_url must be {'url': ..., 'detail'?: ...}"
    url = image.get("url")
    if not isinstance(url, str):
        return "image_url.url must be a string"
    if url.startswith("data:"):
        head, sep, data = url.partition(";base64,")
        if not sep or head[5:] not in MEDIA_TYPES or not _data_ok(data):
            return "image_url.url: a data URL must be data:<image type>;base64,<data>"
    elif not url.startswith(("http://", "https://")):
        return "image_url.url must be a data: or http(s) URL"
    return None


def anthropic_block_problem(block: Any) -> str | None:
    """Messages API: {"type": "image", "source": {"type": "base64", "media_type", "data"} or {"type": "url", "url"}}."""
    if not isinstance(block, dict) or block.get("type") != "image":
        return (
            None
            if isinstance(block, dict) and block.get("type") != "image_url"
            else "image_url is not a block type"
        )
    source = block.get("source")
    if not set(block) <= {"type", "source", "cache_control"} or not isinstance(source, dict):
        return "an image block is {'type': 'image', 'source': {...}}"
    if source.get("type") == "base64":
        if set(source) != {"type", "media_type", "data"} or source["media_type"] not in MEDIA_TYPES:
            return "source: {'type': 'base64', 'media_type': <image type>, 'data': ...}"
        return None if _data_ok(source["data"]) else "source.data must be base64"
    if source.get("type") == "url" and set(source) == {"type", "url"}:
        return None
    return "source.type must be base64 or url"


class FakeVisionOpenAIServer(FakeOpenAIServer):
    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        for msg in body.get("messages", []) if isinstance(body, dict) else []:
            content = msg.get("content")
            for part in content if isinstance(content, list) else []:
                problem = openai_part_problem(part)
                if problem is None and msg.get("role") != "user" and part.get("type") == "image_url":
                    problem = f"image parts are only allowed in user messages, not {msg.get('role')}"
                if problem:
                    return h.send_json(400, {"error": {"message": problem, "type": "invalid_request_error"}})
        return super().handle_post(h, path, body)


class FakeVisionAnthropicServer(FakeAnthropicServer):
    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        for msg in body.get("messages", []) if isinstance(body, dict) else []:
            content = msg.get("content")
            for block in content if isinstance(content, list) else []:
                problem = anthropic_block_problem(block)
                if problem:
                    error = {"type": "error", "error": {"type": "invalid_request_error", "message": problem}}
                    return h.send_json(400, error)
        return super().handle_post(h, path, body)


def images_in(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every image part or block a request carried, in order."""
    found = []
    for msg in body.get("messages", []):
        content = msg.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") in ("image_url", "image"):
                found.append(part)
    return found
