"""A cheap, provider-free size estimate of text or messages, for decisions made before a model call."""

from __future__ import annotations

import json
from typing import Any


def estimate_tokens(obj: Any) -> int:
    """About four characters a token; JSON for anything that is not text."""
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    return max(1, len(text) // 4)
