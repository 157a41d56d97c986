"""MCP results as the text a model reads: text blocks as they are, binary content described, not inlined."""

from __future__ import annotations

import json
from typing import Any

MAX_CHARS = 40_000  # a tool result past this is cut with a note, like other large tool outputs


def _block(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} {block.mime_type}, {len(block.data) * 3 // 4} bytes, not shown]"
    if kind == "resource_link":
        return f"[resource {block.uri}" + (f" ({block.name})" if getattr(block, "name", None) else "") + "]"
    if kind == "resource":
        return _contents(block.resource)
    return f"[{kind or type(block).__name__} content, not shown]"


_TEXT_MIMES = ("application/json", "application/xml", "application/yaml", "application/javascript")


def _as_text(blob: str, mime: str | None) -> str | None:
    """A blob whose MIME type says text, decoded (servers send text files as blobs too); None otherwise."""
    import base64
    import binascii

    if not mime or not (
        mime.startswith("text/") or mime.split(";")[0] in _TEXT_MIMES or mime.endswith("+json")
    ):
        return None
    try:
        return base64.b64decode(blob, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _contents(item: Any) -> str:
    text = getattr(item, "text", None)
    if isinstance(text, str):
        return text
    decoded = _as_text(getattr(item, "blob", "") or "", getattr(item, "mime_type", None))
    if decoded is not None:
        return decoded
    mime = getattr(item, "mime_type", None) or "binary"
    return f"[{mime} resource {item.uri}, {len(getattr(item, 'blob', '')) * 3 // 4} bytes, not shown]"


def cut(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS] + f"\n[… {len(text) - MAX_CHARS} more characters cut]"


def tool_result_text(result: Any) -> str:
    parts = [_block(b) for b in (result.content or [])]
    if not any(p.strip() for p in parts) and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False, indent=1)]
    return cut("\n".join(parts) or "(no output)")


def resource_text(result: Any) -> str:
    return cut("\n\n".join(_contents(c) for c in result.contents) or "(empty resource)")


def prompt_text(result: Any) -> str:
    lines = [f"({result.description})"] if result.description else []
    lines += [f"[{m.role}] {_block(m.content)}" for m in result.messages]
    return cut("\n\n".join(lines))
