"""A cheap, provider-free size estimate of text or messages, for decisions made before a model call."""

from __future__ import annotations

import json
from typing import Any

# What one image costs a provider, about: Anthropic ~1,600 tokens at its 1568 px cap, OpenAI ~1,100 at high
# detail. Its base64 length says nothing about that (a 1 MB PNG would "cost" 330k tokens and force compression).
IMAGE_TOKENS = 1_600


def estimate_tokens(obj: Any) -> int:
    """About four characters a token; JSON for anything that is not text; a fixed cost per image part."""
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    if isinstance(obj, str) or '"image_url"' not in text:
        return max(1, len(text) // 4)
    images = 0

    def strip(node: Any) -> Any:
        nonlocal images
        if isinstance(node, dict):
            if node.get("type") == "image_url":
                images += 1
                return None
            return {k: strip(v) for k, v in node.items()}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    rest = json.dumps(strip(obj), ensure_ascii=False)
    return max(1, len(rest) // 4) + images * IMAGE_TOKENS
