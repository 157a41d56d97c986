"""Images a client sends (chat `image_url` parts, Responses `input_image` items) as grove's image parts: a data:
URL decoded and checked like a local file (type by its bytes, the size cap), an http(s) URL passed on for the
provider to fetch; anything else is a 400 that says what to send."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from grove.llm.images import ImageError, image_part, image_part_from_bytes
from grove.serve.errors import refuse
from grove.serve.schemas import ChatMessage

_DATA_URL = re.compile(r"^data:(?P<type>[\w.+-]+/[\w.+-]+)?(?P<b64>;base64)?,(?P<data>.*)$", re.DOTALL)


def image_parts(message: ChatMessage, param: str = "messages") -> list[dict[str, Any]]:
    """The message's images as OpenAI-format image parts (what grove.llm.images makes for `grove run --image`)."""
    parts = []
    for i, url in enumerate(message.image_urls()):
        where = f"image {i + 1} of a {message.role} message"
        if url.startswith(("http://", "https://")):
            parts.append(image_part(url))
            continue
        found = _DATA_URL.match(url)
        if found is None or not found["b64"]:
            raise refuse(
                f"{where}: give the image as a base64 data: URL (data:image/png;base64,...) or an http(s) URL",
                param,
                "invalid_image",
            )
        try:
            data = base64.b64decode(found["data"], validate=True)
        except (binascii.Error, ValueError):
            raise refuse(f"{where}: its data: URL is not valid base64", param, "invalid_image") from None
        try:
            parts.append(image_part_from_bytes(data, where))
        except ImageError as exc:
            raise refuse(str(exc), param, "invalid_image") from None
    return parts
