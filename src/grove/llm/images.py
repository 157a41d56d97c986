"""Images as OpenAI-format content parts: read and capped from a file or URL, refused for a model that cannot see,
and sent only while recent (older ones become a one-line note, so a long chat does not resend them every call)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.types import Message

# Anthropic refuses an image over 5 MB and OpenAI over 20 MB: the lower cap holds for every provider. No resizing:
# Pillow is not a dependency of the base install, so an image over the cap is refused with what to do.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
# Only the images of the last few messages that hold any are sent; older ones are replaced by a note (they stay
# in state.db as they were). Two: the picture being discussed and the one before, for a comparison.
KEEP_IMAGE_MESSAGES = 2
RESENT_NOTE = "[an image was shown here earlier; it is not sent again]"
SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class CannotSee(ModelError):
    """Images would go to a model that cannot see them: the request's fault, not the model's (an API says 400)."""


class ImageError(ValueError):
    """An image that cannot be sent: missing, not an image, or too large; the message says what to do."""


def media_type(data: bytes) -> str | None:
    """The image type by its first bytes (never by the file name): png, jpeg, gif or webp; None for anything else."""
    for magic, kind in SIGNATURES:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_part_from_bytes(data: bytes, label: str) -> dict[str, Any]:
    kind = media_type(data)
    if kind is None:
        raise ImageError(f"{label} is not a PNG, JPEG, GIF or WebP image")
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(
            f"{label} is {len(data) / 1e6:.1f} MB; images are capped at {MAX_IMAGE_BYTES // (1024 * 1024)} MB: "
            "shrink it first (e.g. `convert in.png -resize 1568x1568 out.jpg`)"
        )
    url = f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def image_part(source: str) -> dict[str, Any]:
    """An image content part from a local path (sent inline as base64) or an http(s) URL (sent as the URL: the
    provider fetches it, grove does not)."""
    if source.startswith(("http://", "https://")):
        return {"type": "image_url", "image_url": {"url": source}}
    path = Path(source).expanduser()
    if not path.is_file():
        raise ImageError(f"no image file at {source}: give a path to a PNG, JPEG, GIF or WebP file, or a URL")
    with path.open("rb") as f:
        data = f.read(MAX_IMAGE_BYTES + 1)  # never read more than the cap from a huge file
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(
            f"{source} is {path.stat().st_size / 1e6:.1f} MB; images are capped at "
            f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB: shrink it first (e.g. `convert in.png -resize 1568x1568 out.jpg`)"
        )
    return image_part_from_bytes(data, source)


def user_content(text: str, images: list[dict[str, Any]] | None) -> str | list[dict[str, Any]]:
    """A user message's content: the text alone, or text then image parts."""
    if not images:
        return text
    return [{"type": "text", "text": text}, *images]


def is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


def has_images(messages: list[Message]) -> bool:
    return any(
        isinstance(m.get("content"), list) and any(is_image(p) for p in m["content"]) for m in messages
    )


def seeing_models() -> str:
    """The providers' default models (all of which see images), for the error that says what to pick."""
    from grove.providers_table import auto_models

    return ", ".join(spec for _, spec in auto_models())


def refuse_if_blind(messages: list[Message], vision: bool, model: str) -> None:
    """A clear error, before any request, when images would go to a model that cannot see them."""
    if vision or not has_images(messages):
        return
    raise CannotSee(
        ErrorKind.BAD_REQUEST,
        f"this model cannot see images; pick one that can: --model {seeing_models()} "
        "(or another vision model of your provider)",
        model=model,
    )


def recent_images_only(messages: list[Message], keep: int = KEEP_IMAGE_MESSAGES) -> list[Message]:
    """Copies where only the last `keep` image-bearing messages keep their images; the input is untouched."""
    holders = [
        i
        for i, m in enumerate(messages)
        if isinstance(m.get("content"), list) and any(is_image(p) for p in m["content"])
    ]
    old = set(holders[:-keep] if keep else holders)
    if not old:
        return messages
    out = list(messages)
    for i in old:
        parts = [
            p if not is_image(p) else {"type": "text", "text": RESENT_NOTE} for p in messages[i]["content"]
        ]
        out[i] = {**messages[i], "content": parts}
    return out
